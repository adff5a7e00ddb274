/* qf-net.h — socket helpers shared by the network engines: ping, socket ping-pong, cycle test,
 * bandwidth and the responders (src/engine).
 *
 * Name resolution, binding a socket to an interface, printing an address, the one error
 * domain those engines report in, so the core maps every network failure the same way,
 * exact-length I/O with a deadline for the exchanges that set a test up, the socket calls of the
 * per-message paths, and the wake timer that lets a thread wait in a blocking recv() without a
 * receive timeout.
 */
#pragma once

#include <glib.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

G_BEGIN_DECLS

#define QF_NET_ERROR (qf_net_error_quark ())
GQuark qf_net_error_quark (void);

typedef enum
{
  QF_NET_ERROR_INVALID,      /* a parameter is out of range */
  QF_NET_ERROR_RESOLVE,      /* the host name does not resolve */
  QF_NET_ERROR_PERMISSION,   /* a privilege or sysctl is missing (message names the fix) */
  QF_NET_ERROR_UNREACHABLE,  /* no route, connection refused, or no reply at all */
  QF_NET_ERROR_PROTOCOL,     /* the peer answered something that breaks the protocol, or
                              * refused the test */
  QF_NET_ERROR_IO,           /* a socket call or other local system call failed */
  QF_NET_ERROR_CANCELLED,    /* stopped on request */
  QF_NET_ERROR_PEER_LOST,    /* the peer vanished or stalled during the test */
  QF_NET_ERROR_BUSY,         /* the peer is running another test */
} QfNetError;

/* Resolves host (name or literal, IPv4 or IPv6) for socktype (SOCK_STREAM/SOCK_DGRAM/0). */
gboolean qf_net_resolve            (const char              *host,
                                    guint16                  port,
                                    int                      socktype,
                                    struct sockaddr_storage *out,
                                    socklen_t               *out_len,
                                    GError                 **error);

/* TRUE when the kernel has an interface called iface; else FALSE with a QF_NET_ERROR_INVALID
 * that names it (cleaned of control characters) and says how to list the interfaces. */
gboolean qf_net_iface_exists       (const char              *iface,
                                    GError                 **error);

/* Binds fd to iface: SO_BINDTODEVICE, or, when that is not permitted, bind() to the interface's
 * first address of family (port 0). iface NULL or "" does nothing. */
gboolean qf_net_bind_iface         (int                      fd,
                                    int                      family,
                                    const char              *iface,
                                    GError                 **error);

/* "10.0.0.2:11111", "[fe80::1]:11111", or without a port when port is FALSE. */
char    *qf_net_address_to_string  (const struct sockaddr   *addr,
                                    gboolean                 with_port);

/* The host a person (or a client) can use again: "10.0.0.2", "fe80::1%eth0" (an IPv6
 * link-local address with the name of its interface from sin6_scope_id; an address without a
 * scope is meaningless), a dual-stack socket's IPv4 client as IPv4. */
char    *qf_net_host_to_string     (const struct sockaddr   *addr);

/* Sets errno's text into a QF_NET_ERROR with a category chosen from errno. */
void     qf_net_set_errno_error    (GError                 **error,
                                    int                      errsv,
                                    const char              *format,
                                    ...) G_GNUC_PRINTF (3, 4);

/* Exact-length socket I/O with a deadline, for the short exchanges that set up a test (the
 * bandwidth control connection, the access-token challenge), not the measured paths: moves
 * exactly n bytes, whether fd blocks or not, unless deadline_ns (CLOCK_MONOTONIC) passes, *cancel
 * (may be NULL) becomes nonzero, the peer closes the connection (reading) or a socket call
 * fails (its errno in *errsv, which may be NULL). The caller words the failure, since the same
 * one reads differently in each exchange. Polls in slices of at most 100 ms. Any thread. */
typedef enum
{
  QF_NET_IO_DONE,
  QF_NET_IO_CANCELLED,
  QF_NET_IO_TIMED_OUT,
  QF_NET_IO_CLOSED,
  QF_NET_IO_FAILED,
} QfNetIoStatus;

QfNetIoStatus qf_net_read_exact  (int                      fd,
                                  void                    *buf,
                                  gsize                    n,
                                  gint64                   deadline_ns,
                                  const gint              *cancel,
                                  int                     *errsv);
QfNetIoStatus qf_net_write_exact (int                      fd,
                                  const void              *buf,
                                  gsize                    n,
                                  gint64                   deadline_ns,
                                  const gint              *cancel,
                                  int                     *errsv);

/* recv(), send(), recvfrom() and sendto() for the per-message paths, as plain system calls.
 * glibc's wrappers are cancellation points: in a process with more than one thread (every
 * Qualify process) each call switches asynchronous cancellation on and off around the system
 * call, two atomic operations a message that single-threaded sockperf does not pay (0.2–0.3 % of
 * a one-CPU round trip in a profile). Nothing in Qualify cancels a thread. Same return value and
 * errno as the libc calls. Sanitizer builds keep the libc calls: ASan checks the buffers they
 * are given and TSan learns from them what one thread tells another through a socket. */
static inline ssize_t
qf_net_recvfrom (int fd, void *buf, size_t len, int flags, struct sockaddr *addr,
                 socklen_t *addr_len)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return recvfrom (fd, buf, len, flags, addr, addr_len);
#else
  return syscall (SYS_recvfrom, fd, buf, len, flags, addr, addr_len);
#endif
}

static inline ssize_t
qf_net_sendto (int fd, const void *buf, size_t len, int flags, const struct sockaddr *addr,
               socklen_t addr_len)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return sendto (fd, buf, len, flags, addr, addr_len);
#else
  return syscall (SYS_sendto, fd, buf, len, flags, addr, addr_len);
#endif
}

static inline ssize_t
qf_net_recv (int fd, void *buf, size_t len, int flags)
{
  return qf_net_recvfrom (fd, buf, len, flags, NULL, NULL);
}

static inline ssize_t
qf_net_send (int fd, const void *buf, size_t len, int flags)
{
  return qf_net_sendto (fd, buf, len, flags, NULL, 0);
}

/* Runs func (data, outbox) on a new thread with a descriptor table of its own that holds only
 * the descriptors in keep[] (and 0–2), and returns when func has returned. The kernel looks a
 * descriptor up without touching its reference count only when no other thread shares the
 * table; in a process of several threads (every Qualify process) each socket call otherwise
 * takes and drops a reference to the file, which single-threaded sockperf does not pay
 * (0.5–1 % of a one-CPU round trip at each end, docs/benchmarks.md). The measurement loops of
 * the ping-pong client and of the responder run this way.
 *
 * The rules for func, since a descriptor number means something else on the other side:
 * - it uses only the kept descriptors and those it opens itself, and closes those before it
 *   returns (what is still open then is closed with the thread, but no one else can name it);
 * - it hands no descriptor out, and calls nothing that may keep one for later or use one opened
 *   elsewhere: no callback of the caller's, no logging. It pushes such work (g_malloc'd items)
 *   to outbox instead; the calling thread hands each item, in order, to deliver (may be NULL)
 *   with deliver_data, then frees it with g_free — the latency client's progress and the
 *   responder's log go so.
 * The kept descriptors stay the caller's: closing the copies (when func returns) leaves them
 * open. When the system refuses (an old kernel, a sandbox's seccomp filter), and in TSan builds,
 * whose descriptor bookkeeping assumes one table a process, the thread shares the process's
 * table: the same behaviour, the dearer lookups. */
typedef void (*QfNetOwnFdFunc)  (gpointer     data,
                                 GAsyncQueue *outbox);
typedef void (*QfNetDeliverFunc) (gpointer    item,
                                  gpointer    user_data);

void     qf_net_run_on_own_fd_table (const char              *name,
                                     QfNetOwnFdFunc           func,
                                     gpointer                 data,
                                     const int               *keep,
                                     guint                    n_keep,
                                     QfNetDeliverFunc         deliver,
                                     gpointer                 deliver_data);

/* A periodic wake-up for the thread that made it, so it can wait in a blocking recv() with no
 * SO_RCVTIMEO and still look at its stop flag and deadlines: while armed, a timer sends that
 * thread QF_NET_WAKE_SIGNAL every period_ns; the signal's handler is empty and installed without
 * SA_RESTART, so the recv() returns -1 with EINTR. A receive timeout arms and cancels a kernel
 * timer around every message instead, which costs 0.2–1.7 µs a message on a VM
 * (bench/latency-vs-sockperf, placements one-cpu and two-cpus); this timer is armed once a test.
 * The signal is process-wide: nothing else in Qualify may use it.
 *
 * When the system refuses a timer, arm() falls back to that receive timeout: it sets SO_RCVTIMEO
 * of period_ns on fd (armed) or clears it (not armed; fd -1 when the socket is gone), so the
 * caller's recv() returns EAGAIN instead of EINTR. With the timer, fd is not used. new, arm and
 * free on the thread that waits. */
#define QF_NET_WAKE_SIGNAL (SIGRTMIN + 5)
typedef struct _QfWakeTimer QfWakeTimer;

QfWakeTimer *qf_wake_timer_new     (gint64                   period_ns);
void         qf_wake_timer_arm     (QfWakeTimer             *timer,
                                    int                      fd,
                                    gboolean                 armed);
void         qf_wake_timer_free    (QfWakeTimer             *timer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfWakeTimer, qf_wake_timer_free)

G_END_DECLS
