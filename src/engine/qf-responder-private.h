/* qf-responder-private.h — what the latency responder's files share (src/engine): its tables,
 * and what each file offers the others. The public face is qf-responder.h.
 *
 * One concern per file, each calling only the ones below it (never back up):
 *   qf-responder.c          new (config, sockets, tables) and free
 *   qf-responder-loop.c     qf_responder_run: the thread, the epoll loop, housekeeping, the
 *                           sole-client and busy-poll modes, releasing held replies
 *   qf-responder-conn.c     TCP connections: admission, the access token, ping-pong sessions
 *   qf-responder-udp.c      UDP peers: the access token, ping-pong and cycle datagrams
 *   qf-responder-clients.c  the list of clients served now, for other threads
 *   qf-responder-emulate.c  the emulated poor link: delay, jitter, loss and the held replies
 *   qf-responder-log.c      the log: through the log limit, to the thread that called run()
 * new/free call conn, udp, emulate and clients; the loop calls all but new/free; conn and udp
 * call emulate and log; clients, emulate and log call none of the others.
 *
 * Threads: new/free on the owner's thread; everything else on run()'s loop thread, which alone
 * touches the tables, except qf_responder_list_clients (any thread, under clients_lock). The
 * stop flag is the only thing another thread writes while run() runs.
 */
#pragma once

#include <sys/socket.h>

#include "qf-admission.h"
#include "qf-auth.h"
#include "qf-net.h"
#include "qf-responder.h"
#include "qf-sockperf.h"

G_BEGIN_DECLS

#define QF_RESPONDER_UDP_BUFFER_SIZE 65536

/* What epoll's data says an event is about. */
enum
{
  TAG_TCP_LISTEN = 1,
  TAG_UDP,
  TAG_CONN,
};

#define MAKE_TAG(type, index) (((guint64) (type) << 32) | (guint32) (index))
#define TAG_TYPE(u64)         ((guint) ((u64) >> 32))
#define TAG_INDEX(u64)        ((guint) ((u64) & 0xffffffffu))

/* Where a TCP connection stands with the access token. */
typedef enum
{
  CONN_AUTH_OPEN,          /* no token needed, the token was proved, or a classic client allowed */
  CONN_AUTH_NEEDED,        /* a token is needed and the client has not said HELLO yet */
  CONN_AUTH_CHALLENGED,    /* CHALLENGE sent, waiting for the RESPONSE */
} QfConnAuth;

/* A TCP connection (qf-responder-conn.c). */
typedef struct
{
  int                     fd;             /* -1 = free slot */
  guint                   generation;     /* bumped on reuse, so held replies find their owner */
  struct sockaddr_storage addr;
  gint64                  start_ns;
  gint64                  last_rx_ns;     /* for the idle limit, as of the last housekeeping */
  gboolean                heard;          /* bytes arrived since the last housekeeping */
  guint64                 messages;
  gboolean                spin;
  gboolean                want_out;       /* EPOLLOUT armed, input paused */
  guint8                 *in;
  gsize                   in_len;
  guint8                 *out;
  gsize                   out_off, out_len;
  gint64                  last_due_ns;    /* emulated replies keep their order on a stream */
  QfConnAuth              auth;
  guint8                  nonce[QF_AUTH_NONCE_SIZE];
  gboolean                proven;         /* holds a --max-clients slot (else in unproven) */
} QfResponderConn;

/* A UDP peer, known by its address (qf-responder-udp.c). */
typedef struct
{
  gboolean                in_use;
  struct sockaddr_storage addr;
  socklen_t               addr_len;
  gint64                  first_ns, last_ns;
  guint64                 messages;
  gboolean                cycle;
  gboolean                spin;
  gboolean                expired;
  gboolean                authed;         /* proved the access token */
} QfResponderPeer;

/* A reply the emulation holds back until it is due. */
typedef struct
{
  gint64                  due_ns;
  gboolean                tcp;
  guint                   conn_index, conn_generation;   /* TCP: whose reply it is */
  struct sockaddr_storage addr;                          /* UDP: where it goes */
  socklen_t               addr_len;
  guint8                 *data;
  gsize                   len;
} QfHeldReply;

/* The emulated poor link (qf-responder-emulate.c): what it does to each reply, and the replies
 * it holds, a binary min-heap on due_ns. What decides a reply's fate, such as a queue that grows
 * with load, belongs here. */
typedef struct
{
  QfResponderEmulation config;
  gboolean             active;       /* any delay, jitter, loss or bloat */
  QfResponderLoadFunc  load_bytes;   /* the load's byte counter, for the bloat */
  gpointer             load_data;
  gint64               load_at_ns;   /* when load_bytes was last read */
  guint64              load_last;
  gdouble              queue_ms;     /* the emulated queue's delay now */
  GRand               *rand;
  QfHeldReply         *held;
  guint                n_held;
  gsize                held_bytes;
} QfResponderEmulator;

struct QfResponder
{
  QfResponderConfig    config;
  char                *bind_address;
  char                *iface;
  guint16              port;
  int                  epfd;
  int                  tcp_fd;
  int                  udp_fd;
  gsize                max_msg;
  QfResponderStats     stats;
  QfAuthServer         auth;         /* the access token's check (qf-auth.h) */
  QfResponderEmulator  emulator;

  /* TCP connections */
  QfResponderConn     *conns;        /* max_clients proven + QF_ADMISSION_TOTAL unproven */
  guint                n_conns;
  guint                n_proven;
  QfAdmission          unproven;     /* connections that hold no slot yet (qf-admission.h) */
  guint               *spinners;     /* indexes of the connections that asked to be busy-polled */
  guint                n_spinners;
  QfWakeTimer         *wake;         /* run()'s: interrupts the sole client's recv() */

  /* UDP peers */
  QfResponderPeer     *peers;
  guint                n_peers;
  guint8              *udp_buf;
  gboolean             spin_udp;     /* a UDP client asked for busy-polling (housekeeping) */
  gint64               refusal_second;
  guint                refusals_in_second;

  /* the log */
  GAsyncQueue         *log_outbox;   /* while running: lines for the caller's thread */
  QfLogLimit           log_limit;

  /* the clients served now */
  GMutex               clients_lock;
  GArray              *clients;      /* under clients_lock: QfServedClient, as of housekeeping */
};

/* Whether a ping-pong request is to be busy-polled: the client asked (our spin flag), or the
 * responder was told to for everyone (spin_all, serve --spin). Inline: once per message. */
static inline gboolean
_qf_responder_wants_spin (const QfResponder *self,
                          guint16            flags)
{
  return (flags & QF_SOCKPERF_FLAG_QF_SPIN) || self->config.spin_all;
}

/* qf-responder-log.c */
void     _qf_responder_log         (QfResponder           *self,
                                    const char            *format,
                                    ...) G_GNUC_PRINTF (2, 3);
void     _qf_responder_log_reject  (QfResponder           *self,
                                    const struct sockaddr *addr,
                                    const char            *why);
void     _qf_responder_log_summary (QfResponder           *self,
                                    gint64                 now_ns,
                                    gboolean               force);
void     _qf_responder_log_deliver (gpointer               line,
                                    gpointer               user_data);

/* qf-responder-emulate.c */
gboolean _qf_responder_emulator_init     (QfResponderEmulator        *em,
                                          const QfResponderEmulation *config,
                                          QfResponderLoadFunc         load_bytes,
                                          gpointer                    load_data,
                                          GError                    **error);
void     _qf_responder_emulator_clear    (QfResponderEmulator        *em);
gint64   _qf_responder_emulator_due_ns   (QfResponderEmulator        *em,
                                          gint64                      now_ns);
gboolean _qf_responder_emulator_loses    (QfResponderEmulator        *em);
gboolean _qf_responder_emulator_hold     (QfResponderEmulator        *em,
                                          const QfHeldReply          *reply);
gboolean _qf_responder_emulator_take_due (QfResponderEmulator        *em,
                                          gint64                      now_ns,
                                          QfHeldReply                *reply);

/* qf-responder-conn.c */
void     _qf_responder_conn_accept       (QfResponder       *self);
void     _qf_responder_conn_close        (QfResponder       *self,
                                          guint              index,
                                          const char        *why);
void     _qf_responder_conn_close_all    (QfResponder       *self);
gboolean _qf_responder_conn_flush        (QfResponder       *self,
                                          guint              index);
gboolean _qf_responder_conn_readable     (QfResponder       *self,
                                          guint              index,
                                          gboolean           block);
void     _qf_responder_conn_serve_sole   (QfResponder       *self,
                                          guint              index,
                                          const gint        *stop);
void     _qf_responder_conn_send_held    (QfResponder       *self,
                                          const QfHeldReply *reply);
void     _qf_responder_conn_expire_unproven (QfResponder    *self,
                                             gint64          now_ns);
void     _qf_responder_conn_end_overdue  (QfResponder       *self,
                                          gint64             now_ns);

/* qf-responder-udp.c */
void     _qf_responder_udp_readable      (QfResponder       *self);
void     _qf_responder_udp_send_held     (QfResponder       *self,
                                          const QfHeldReply *reply);
gboolean _qf_responder_udp_housekeeping  (QfResponder       *self,
                                          gint64             now_ns);
void     _qf_responder_udp_end_all       (QfResponder       *self);

/* qf-responder-clients.c */
void     _qf_responder_clients_publish   (QfResponder       *self,
                                          gint64             now_ns);

G_END_DECLS
