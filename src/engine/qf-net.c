/* qf-net.c — socket helpers shared by the network engines (src/engine). See qf-net.h. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-net.h"
#include "qf-text.h"

G_DEFINE_QUARK (qf-net-error-quark, qf_net_error)

gboolean
qf_net_resolve (const char               *host,
                guint16                   port,
                int                       socktype,
                struct sockaddr_storage  *out,
                socklen_t                *out_len,
                GError                  **error)
{
  struct addrinfo hints = { 0 }, *res = NULL;
  char service[8];
  int rc;

  g_return_val_if_fail (host != NULL && out != NULL && out_len != NULL, FALSE);

  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = socktype;
  hints.ai_flags = AI_NUMERICSERV;
  g_snprintf (service, sizeof service, "%u", port);
  rc = getaddrinfo (host, service, &hints, &res);
  if (rc != 0 || res == NULL)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_RESOLVE,
                   _("Cannot resolve “%s”: %s. Check the address of the peer."),
                   host, rc != 0 ? gai_strerror (rc) : _("no address"));
      return FALSE;
    }
  memset (out, 0, sizeof *out);
  memcpy (out, res->ai_addr, res->ai_addrlen);
  *out_len = res->ai_addrlen;
  freeaddrinfo (res);
  return TRUE;
}

gboolean
qf_net_iface_exists (const char  *iface,
                     GError     **error)
{
  g_autofree char *shown = NULL;

  if (if_nametoindex (iface) != 0)
    return TRUE;
  shown = qf_text_clean (iface, -1);
  g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
               _("There is no network interface “%s”. List them with “ip link”."), shown);
  return FALSE;
}

gboolean
qf_net_bind_iface (int          fd,
                   int          family,
                   const char  *iface,
                   GError     **error)
{
  struct ifaddrs *list = NULL;
  g_autofree char *shown = NULL;
  gboolean bound = FALSE;
  int errsv;

  if (iface == NULL || iface[0] == '\0')
    return TRUE;
  if (!qf_net_iface_exists (iface, error))
    return FALSE;
  if (setsockopt (fd, SOL_SOCKET, SO_BINDTODEVICE, iface, strlen (iface) + 1) == 0)
    return TRUE;
  errsv = errno;
  shown = qf_text_clean (iface, -1);
  if (errsv != EPERM && errsv != EACCES)
    {
      qf_net_set_errno_error (error, errsv, _("Cannot bind to interface “%s”"), shown);
      return FALSE;
    }

  /* Unprivileged on an older kernel: binding the interface's address picks the source address,
   * which on a typical two-machine link also picks the route. */
  if (getifaddrs (&list) != 0)
    {
      qf_net_set_errno_error (error, errno, _("Cannot list the addresses of “%s”"), shown);
      return FALSE;
    }
  for (struct ifaddrs *ifa = list; ifa != NULL && !bound; ifa = ifa->ifa_next)
    {
      struct sockaddr_storage ss = { 0 };
      socklen_t len;

      if (ifa->ifa_addr == NULL || ifa->ifa_addr->sa_family != family
          || g_strcmp0 (ifa->ifa_name, iface) != 0)
        continue;
      len = family == AF_INET6 ? sizeof (struct sockaddr_in6) : sizeof (struct sockaddr_in);
      memcpy (&ss, ifa->ifa_addr, len);
      if (family == AF_INET6)
        ((struct sockaddr_in6 *) &ss)->sin6_port = 0;
      else
        ((struct sockaddr_in *) &ss)->sin_port = 0;
      if (bind (fd, (struct sockaddr *) &ss, len) == 0)
        bound = TRUE;
    }
  freeifaddrs (list);
  if (!bound)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PERMISSION,
                   _("Cannot bind to interface “%s”: not permitted, and it has no usable address. "
                     "Run as root or give the address with the source option."), shown);
      return FALSE;
    }
  return TRUE;
}

char *
qf_net_address_to_string (const struct sockaddr *addr,
                          gboolean               with_port)
{
  char text[INET6_ADDRSTRLEN] = "?";

  if (addr->sa_family == AF_INET6)
    {
      const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *) addr;
      if (IN6_IS_ADDR_V4MAPPED (&in6->sin6_addr))
        {
          /* A dual-stack socket's IPv4 client: show it as people know it. */
          inet_ntop (AF_INET, &in6->sin6_addr.s6_addr[12], text, sizeof text);
          return with_port ? g_strdup_printf ("%s:%u", text, ntohs (in6->sin6_port))
                           : g_strdup (text);
        }
      inet_ntop (AF_INET6, &in6->sin6_addr, text, sizeof text);
      return with_port ? g_strdup_printf ("[%s]:%u", text, ntohs (in6->sin6_port))
                       : g_strdup (text);
    }
  if (addr->sa_family == AF_INET)
    {
      const struct sockaddr_in *in = (const struct sockaddr_in *) addr;
      inet_ntop (AF_INET, &in->sin_addr, text, sizeof text);
      return with_port ? g_strdup_printf ("%s:%u", text, ntohs (in->sin_port)) : g_strdup (text);
    }
  return g_strdup (text);
}

char *
qf_net_host_to_string (const struct sockaddr *addr)
{
  const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *) addr;
  char iface[IF_NAMESIZE];
  g_autofree char *host = qf_net_address_to_string (addr, FALSE);

  if (addr->sa_family != AF_INET6 || !IN6_IS_ADDR_LINKLOCAL (&in6->sin6_addr)
      || in6->sin6_scope_id == 0)
    return g_steal_pointer (&host);
  if (if_indextoname (in6->sin6_scope_id, iface) == NULL)
    return g_strdup_printf ("%s%%%u", host, in6->sin6_scope_id);
  return g_strdup_printf ("%s%%%s", host, iface);
}

void
qf_net_set_errno_error (GError     **error,
                        int          errsv,
                        const char  *format,
                        ...)
{
  g_autofree char *what = NULL;
  QfNetError code;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);

  switch (errsv)
    {
    case EPERM:
    case EACCES:
      code = QF_NET_ERROR_PERMISSION;
      break;
    case ECONNREFUSED:
    case EHOSTUNREACH:
    case ENETUNREACH:
    case ETIMEDOUT:
    case EHOSTDOWN:
    case ENETDOWN:
    case EADDRNOTAVAIL:
      code = QF_NET_ERROR_UNREACHABLE;
      break;
    default:
      code = QF_NET_ERROR_IO;
      break;
    }
  g_set_error (error, QF_NET_ERROR, code, "%s: %s", what, g_strerror (errsv));
}

/* ---- exact-length transfers ---------------------------------------------------------------- */

/* Waits until fd is ready for events: 1; 0 when deadline_ns has passed; -1 on a stop request.
 * Polls in slices of at most 100 ms so a stop is seen soon. */
static int
wait_ready (int         fd,
            short       events,
            gint64      deadline_ns,
            const gint *cancel)
{
  for (;;)
    {
      struct pollfd pfd = { fd, events, 0 };
      gint64 now = qf_clock_now_ns ();

      if (cancel != NULL && g_atomic_int_get (cancel))
        return -1;
      if (now >= deadline_ns)
        return 0;
      if (poll (&pfd, 1, (int) MIN ((deadline_ns - now) / QF_NSEC_PER_MSEC + 1, 100)) > 0)
        return 1;
    }
}

static QfNetIoStatus
transfer_exact (int          fd,
                gboolean     sending,
                char        *buf,
                gsize        n,
                gint64       deadline_ns,
                const gint  *cancel,
                int         *errsv)
{
  gsize done = 0;

  while (done < n)
    {
      int rc = wait_ready (fd, sending ? POLLOUT : POLLIN, deadline_ns, cancel);
      ssize_t moved;

      if (rc < 0)
        return QF_NET_IO_CANCELLED;
      if (rc == 0)
        return QF_NET_IO_TIMED_OUT;
      moved = sending ? send (fd, buf + done, n - done, MSG_NOSIGNAL | MSG_DONTWAIT)
                      : recv (fd, buf + done, n - done, MSG_DONTWAIT);
      if (moved > 0)
        done += moved;
      else if (moved == 0 && !sending)
        return QF_NET_IO_CLOSED;
      else if (moved < 0 && errno != EAGAIN && errno != EINTR)
        {
          if (errsv != NULL)
            *errsv = errno;
          return QF_NET_IO_FAILED;
        }
    }
  return QF_NET_IO_DONE;
}

QfNetIoStatus
qf_net_read_exact (int          fd,
                   void        *buf,
                   gsize        n,
                   gint64       deadline_ns,
                   const gint  *cancel,
                   int         *errsv)
{
  return transfer_exact (fd, FALSE, buf, n, deadline_ns, cancel, errsv);
}

QfNetIoStatus
qf_net_write_exact (int          fd,
                    const void  *buf,
                    gsize        n,
                    gint64       deadline_ns,
                    const gint  *cancel,
                    int         *errsv)
{
  return transfer_exact (fd, TRUE, (char *) buf, n, deadline_ns, cancel, errsv);
}

/* ---- own descriptor table ----------------------------------------------------------------- */

typedef struct
{
  QfNetOwnFdFunc func;
  gpointer       data;
  int           *keep;     /* sorted */
  guint          n_keep;
  GAsyncQueue   *outbox;
} OwnFdTable;

/* The outbox's last item: func has returned. */
static const char OUTBOX_END[] = "";

/* close_range () is what empties the copy; without it (Linux < 5.9) no copy is made. */
static gboolean
close_range_works (void)
{
  static gsize works = 0;   /* 1 yes, 2 no */

  if (g_once_init_enter (&works))
    g_once_init_leave (&works, close_range (~0U, ~0U, 0) == 0 ? 1 : 2);
  return works == 1;
}

static int
compare_int (const void *a,
             const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;

  return (x > y) - (x < y);
}

/* Closes every descriptor from 3 up but the sorted keep[]. */
static void
close_all_but (const int *keep,
               guint      n_keep)
{
  unsigned int next = 3;

  for (guint i = 0; i < n_keep; i++)
    {
      if (keep[i] < 0 || (unsigned int) keep[i] < next)
        continue;
      if ((unsigned int) keep[i] > next)
        close_range (next, (unsigned int) keep[i] - 1, 0);
      next = (unsigned int) keep[i] + 1;
    }
  close_range (next, ~0U, 0);
}

static gpointer
own_fd_table_thread (gpointer data)
{
  OwnFdTable *job = data;
  gboolean own = FALSE;

#ifndef __SANITIZE_THREAD__
  own = close_range_works () && unshare (CLONE_FILES) == 0;
#endif
  /* The copy holds every descriptor the process had a moment ago, other threads' too: a socket
   * another thread closes would stay open (its peer would see no end) while this one runs. */
  if (own)
    close_all_but (job->keep, job->n_keep);
  job->func (job->data, job->outbox);
  /* And the rest now: the thread's exit would drop them only after a join has returned, so a
   * socket the caller closes next would stay open a moment longer. */
  if (own)
    close_range (0, ~0U, 0);
  g_async_queue_push (job->outbox, (gpointer) OUTBOX_END);
  return NULL;
}

void
qf_net_run_on_own_fd_table (const char       *name,
                            QfNetOwnFdFunc    func,
                            gpointer          data,
                            const int        *keep,
                            guint             n_keep,
                            QfNetDeliverFunc  deliver,
                            gpointer          deliver_data)
{
  OwnFdTable job = { func, data, NULL, n_keep, NULL };
  GThread *thread;
  gpointer item;

  g_return_if_fail (func != NULL && (keep != NULL || n_keep == 0));

  job.outbox = g_async_queue_new ();
  job.keep = n_keep > 0 ? g_memdup2 (keep, n_keep * sizeof *keep) : NULL;
  if (n_keep > 1)
    qsort (job.keep, n_keep, sizeof *job.keep, compare_int);
  thread = g_thread_new (name, own_fd_table_thread, &job);
  while ((item = g_async_queue_pop (job.outbox)) != (gpointer) OUTBOX_END)
    {
      if (deliver != NULL)
        deliver (item, deliver_data);
      g_free (item);
    }
  g_thread_join (thread);
  g_async_queue_unref (job.outbox);
  g_free (job.keep);
}

/* ---- wake timer --------------------------------------------------------------------------- */

struct _QfWakeTimer
{
  gint64   period_ns;
  gboolean have_timer;   /* FALSE: the SO_RCVTIMEO fallback */
  timer_t  timer;
};

static void
wake_signal_handler (int sig)
{
  (void) sig;   /* its only job is to make a blocked recv() return EINTR */
}

/* The signal handler (once per process) and the signal unblocked in this thread. */
static gboolean
wake_signal_ready (void)
{
  static gsize handler = 0;   /* 1 installed, 2 refused */
  sigset_t set;

  if (g_once_init_enter (&handler))
    {
      struct sigaction sa = { 0 };

      sa.sa_handler = wake_signal_handler;   /* no SA_RESTART: the blocked call must return */
      sigemptyset (&sa.sa_mask);
      g_once_init_leave (&handler, sigaction (QF_NET_WAKE_SIGNAL, &sa, NULL) == 0 ? 1 : 2);
    }
  if (handler != 1)
    return FALSE;
  sigemptyset (&set);
  sigaddset (&set, QF_NET_WAKE_SIGNAL);
  return pthread_sigmask (SIG_UNBLOCK, &set, NULL) == 0;
}

QfWakeTimer *
qf_wake_timer_new (gint64 period_ns)
{
  QfWakeTimer *self;

  g_return_val_if_fail (period_ns > 0, NULL);

  self = g_new0 (QfWakeTimer, 1);
  self->period_ns = period_ns;
  if (wake_signal_ready ())
    {
      struct sigevent sev = { 0 };

      sev.sigev_notify = SIGEV_THREAD_ID;
      sev.sigev_signo = QF_NET_WAKE_SIGNAL;
      sev._sigev_un._tid = gettid ();
      self->have_timer = timer_create (CLOCK_MONOTONIC, &sev, &self->timer) == 0;
    }
  return self;
}

void
qf_wake_timer_arm (QfWakeTimer *self,
                   int          fd,
                   gboolean     armed)
{
  gint64 ns;

  g_return_if_fail (self != NULL);

  ns = armed ? self->period_ns : 0;
  if (self->have_timer)
    {
      struct itimerspec its = { 0 };

      its.it_value.tv_sec = its.it_interval.tv_sec = ns / G_GINT64_CONSTANT (1000000000);
      its.it_value.tv_nsec = its.it_interval.tv_nsec = ns % G_GINT64_CONSTANT (1000000000);
      timer_settime (self->timer, 0, &its, NULL);
    }
  else if (fd >= 0)
    {
      struct timeval tv = { ns / G_GINT64_CONSTANT (1000000000),
                            (ns % G_GINT64_CONSTANT (1000000000)) / 1000 };

      setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    }
}

void
qf_wake_timer_free (QfWakeTimer *self)
{
  if (self == NULL)
    return;
  if (self->have_timer)
    timer_delete (self->timer);
  g_free (self);
}
