/* qf-auth.h — the responder's shared access token and its HMAC challenge (src/engine).
 *
 * `qualify-cli serve --token-file FILE` makes the latency responder (ping-pong and cycle, TCP and
 * UDP) answer only clients that prove they hold the same token; the token never crosses the wire.
 * Control messages travel in sockperf's framing (14-byte header: u64 sequence, u16 flags,
 * u32 whole length, big-endian) with the flag QF_AUTH_FLAG and a sequence whose top 32 bits are
 * "QFAU"; the low 32 bits carry kind << 24 | reason << 16 | value (16 bits):
 *
 *   HELLO      client → server   QF_AUTH_HELLO_SIZE bytes (padding, so every answer is smaller)
 *   CHALLENGE  server → client   header + 32-byte nonce
 *   RESPONSE   client → server   header + the nonce + HMAC-SHA256 (token, context || 0 || nonce)
 *   ACCEPT     server → client   header only
 *   REFUSE     server → client   header only: reason (token required, wrong token, busy) and a
 *                                value (busy: the --max-clients limit)
 *
 * The context is "qualify-latency-auth-1/tcp" or "…/udp", so an answer for one transport is
 * useless on the other. On UDP the server keeps no state before the client has proved itself:
 * its nonce is a timestamp plus a MAC of the timestamp and the client's address under a secret
 * drawn at start (a SYN-cookie), checked when the RESPONSE comes back; it is valid for
 * QF_AUTH_NONCE_LIFETIME_S. No answer is larger than the datagram it answers (no amplification).
 */
#pragma once

#include <glib.h>
#include <sys/socket.h>

G_BEGIN_DECLS

#define QF_AUTH_FLAG              0x0200
#define QF_AUTH_MAGIC             G_GUINT64_CONSTANT (0x51464155)   /* "QFAU" */
#define QF_AUTH_HEADER_SIZE       14
#define QF_AUTH_NONCE_SIZE        32
#define QF_AUTH_MAC_SIZE          32
#define QF_AUTH_HELLO_SIZE        96
#define QF_AUTH_CHALLENGE_SIZE    (QF_AUTH_HEADER_SIZE + QF_AUTH_NONCE_SIZE)
#define QF_AUTH_RESPONSE_SIZE     (QF_AUTH_HEADER_SIZE + QF_AUTH_NONCE_SIZE + QF_AUTH_MAC_SIZE)
#define QF_AUTH_MAX_SIZE          QF_AUTH_HELLO_SIZE
#define QF_AUTH_TOKEN_MIN         16
#define QF_AUTH_TOKEN_MAX         4096
#define QF_AUTH_NONCE_LIFETIME_S  30

typedef enum
{
  QF_AUTH_HELLO = 1,
  QF_AUTH_CHALLENGE,
  QF_AUTH_RESPONSE,
  QF_AUTH_ACCEPT,
  QF_AUTH_REFUSE,
} QfAuthKind;

typedef enum
{
  QF_AUTH_REASON_NONE = 0,
  QF_AUTH_REASON_TOKEN_REQUIRED,
  QF_AUTH_REASON_TOKEN_WRONG,
  QF_AUTH_REASON_BUSY,
} QfAuthReason;

typedef struct
{
  QfAuthKind   kind;
  QfAuthReason reason;
  guint        value;
} QfAuthMessage;

/* Reads a token file: a regular file of QF_AUTH_TOKEN_MIN … QF_AUTH_TOKEN_MAX bytes once one
 * trailing newline ("\n" or "\r\n") is stripped, readable by its owner only (like ssh, a file
 * the group or others can read is refused with the chmod that fixes it). The token is never put
 * into an error message. */
GBytes  *qf_auth_token_load   (const char     *path,
                               GError        **error);

/* Writes a header-only message (ACCEPT, REFUSE) or the header of a longer one into buf. */
void     qf_auth_write        (guint8         *buf,
                               QfAuthKind      kind,
                               QfAuthReason    reason,
                               guint           value,
                               gsize           total_len);
/* Whether buf (len bytes, at least a header) is one of our control messages; fills *msg. */
gboolean qf_auth_parse        (const guint8   *buf,
                               gsize           len,
                               QfAuthMessage  *msg);

/* HMAC-SHA256 (token, context || 0 || nonce) into mac. */
void     qf_auth_mac          (GBytes         *token,
                               gboolean        tcp,
                               const guint8   *nonce,
                               guint8         *mac);
/* Constant-time comparison. */
gboolean qf_auth_equal        (const guint8   *a,
                               const guint8   *b,
                               gsize           len);
/* Fills buf with len random bytes (getrandom). */
gboolean qf_auth_random       (guint8         *buf,
                               gsize           len,
                               GError        **error);

/* The UDP nonce of an address at a time (seconds on the server's clock). */
void     qf_auth_udp_nonce    (const guint8          *secret,
                               guint32                time_s,
                               const struct sockaddr *addr,
                               socklen_t              addr_len,
                               guint8                *nonce);

/* ---- the server's side: one check for the latency port (TCP, UDP) and the bandwidth port ----
 *
 * The responder (qf-responder-conn.c, qf-responder-udp.c) and the bandwidth server (qf-iperf3.c)
 * keep one QfAuthServer each and ask it the same two questions: whether a client that says it
 * can (or cannot) prove the token is served, challenged or refused (qf_auth_server_admit), and
 * whether its answer to the challenge proves the token (qf_auth_server_check). Only the framing
 * differs per port. */

typedef enum
{
  QF_AUTH_CHANNEL_TCP,         /* the latency port over TCP: a random nonce per connection */
  QF_AUTH_CHANNEL_UDP,         /* the latency port over UDP: stateless nonces (see above) */
  QF_AUTH_CHANNEL_BANDWIDTH,   /* the bandwidth port's control connection (below) */
} QfAuthChannel;

typedef enum
{
  QF_AUTH_ADMIT_OPEN,        /* serve it: no token needed, or --allow-classic for a client that
                              * cannot prove one */
  QF_AUTH_ADMIT_CHALLENGE,   /* send it a challenge */
  QF_AUTH_ADMIT_REFUSE,      /* refuse it: a token is needed (QF_AUTH_REASON_TOKEN_REQUIRED) */
} QfAuthAdmit;

typedef struct
{
  GBytes  *token;                          /* NULL: none needed */
  gboolean allow_classic;                  /* with a token: serve clients that cannot prove it */
  guint8   udp_secret[QF_AUTH_MAC_SIZE];   /* keys the stateless UDP nonces */
  gint64   start_ns;                       /* CLOCK_MONOTONIC: the UDP nonces' clock starts here */
} QfAuthServer;

/* A client's answer to a challenge, with what the server knows of it. */
typedef struct
{
  QfAuthChannel          channel;
  const guint8          *issued;     /* TCP, bandwidth: the nonce this server sent; UDP keeps
                                      * none (NULL): the answer carries it back */
  const guint8          *echoed;     /* TCP, UDP: the nonce in the RESPONSE; bandwidth: NULL */
  const guint8          *mac;        /* the proof, QF_AUTH_MAC_SIZE bytes */
  const char            *cookie;     /* bandwidth: the test's cookie (its 36 characters) */
  const struct sockaddr *addr;       /* UDP: who sent it */
  socklen_t              addr_len;
  gint64                 now_ns;     /* UDP: when it came (CLOCK_MONOTONIC) */
} QfAuthAnswer;

/* Takes a reference to token (NULL: none needed) and, with one, draws the UDP secret; clear
 * it with qf_auth_server_clear whatever this returns. */
gboolean qf_auth_server_init      (QfAuthServer          *auth,
                                   GBytes                *token,
                                   gboolean               allow_classic,
                                   GError               **error);
void     qf_auth_server_clear     (QfAuthServer          *auth);

/* What to do with a client that offers to prove the token (HELLO, a marked cookie) or does not
 * (a plain request, a stock client's cookie). Inline: a UDP server asks it for every datagram
 * of a peer it does not know yet. */
static inline QfAuthAdmit
qf_auth_server_admit (const QfAuthServer *auth,
                      gboolean            offers_proof)
{
  if (auth->token == NULL)
    return QF_AUTH_ADMIT_OPEN;
  if (offers_proof)
    return QF_AUTH_ADMIT_CHALLENGE;
  return auth->allow_classic ? QF_AUTH_ADMIT_OPEN : QF_AUTH_ADMIT_REFUSE;
}

/* Writes a CHALLENGE (QF_AUTH_CHALLENGE_SIZE bytes) for the latency port: on TCP a fresh random
 * nonce (keep it for the answer: bytes QF_AUTH_HEADER_SIZE…), on UDP the stateless nonce of addr
 * at now_ns. */
gboolean qf_auth_server_challenge (const QfAuthServer    *auth,
                                   QfAuthChannel          channel,
                                   const struct sockaddr *addr,
                                   socklen_t              addr_len,
                                   gint64                 now_ns,
                                   guint8                *challenge,
                                   GError               **error);
/* The one check of an answer, on every port: the nonce is the one issued (UDP: this server's
 * for that address, at most QF_AUTH_NONCE_LIFETIME_S old) and the MAC proves the token.
 * Constant time in the bytes compared. Needs a token. */
gboolean qf_auth_server_check     (const QfAuthServer    *auth,
                                   const QfAuthAnswer    *answer);

/* If buf is a REFUSE, sets error (the reason in the person's words, with the fix) and returns
 * TRUE. peer names the responder in the message. */
gboolean qf_auth_refusal      (const guint8   *buf,
                               gsize           len,
                               const char     *peer,
                               GError        **error);

/* Client side, on a connected socket (TCP in blocking mode, or UDP): proves the token and waits
 * for ACCEPT. A responder that needs no token accepts at once; one that does not speak this
 * protocol (stock sockperf) is reported after a timeout. */
gboolean qf_auth_client_handshake (int          fd,
                                   gboolean     tcp,
                                   GBytes      *token,
                                   const char  *peer,
                                   const gint  *cancel,
                                   GError     **error);

/* ---- the bandwidth port (iperf3's control protocol) ---------------------------------------
 *
 * Our bandwidth client marks its 37-byte cookie (it starts with QF_AUTH_BW_COOKIE_MARK; iperf3
 * servers compare cookies only, so this changes nothing for them). A responder with a token
 * answers a marked cookie with the control state QF_AUTH_BW_CHALLENGE_STATE and a 32-byte nonce
 * instead of PARAM_EXCHANGE; the client sends HMAC-SHA256 (token, "qualify-bandwidth-auth-1" ||
 * 0 || nonce || the cookie's 36 characters); then the test goes on as iperf3's. An unmarked
 * cookie (stock iperf3) or a wrong answer gets SERVER_ERROR with iperf3's own error code
 * QF_AUTH_IPERF3_IE_AUTHTEST, which iperf3 prints as "test authorization failed". */
#define QF_AUTH_BW_COOKIE_MARK      "qfa1"
#define QF_AUTH_BW_CHALLENGE_STATE  81      /* 'Q': no iperf3 state has this value */
#define QF_AUTH_IPERF3_IE_AUTHTEST  142     /* iperf3's IEAUTHTEST */
#define QF_AUTH_BW_CHALLENGE_SIZE   (1 + QF_AUTH_NONCE_SIZE)

void     qf_auth_bw_mark_cookie       (char        *cookie);
gboolean qf_auth_bw_cookie_is_marked  (const char  *cookie);
/* Server, after reading a marked cookie: the QF_AUTH_BW_CHALLENGE_SIZE bytes to send (the state
 * and a fresh nonce). The server sends them without waiting and reads the answer when it comes
 * (its loop serves other connections meanwhile, qf-iperf3.c). */
gboolean qf_auth_bw_challenge         (guint8       *challenge,
                                       GError      **error);
/* Whether answer (QF_AUTH_MAC_SIZE bytes) proves the token for that challenge and cookie:
 * qf_auth_server_check for a token alone. */
gboolean qf_auth_bw_answer_ok         (GBytes       *token,
                                       const guint8 *challenge,
                                       const char   *cookie,
                                       const guint8 *answer);
/* Client, after reading QF_AUTH_BW_CHALLENGE_STATE: reads the nonce and sends the answer. */
gboolean qf_auth_bw_client_answer     (int          fd,
                                       GBytes      *token,
                                       const char  *cookie,
                                       gint64       deadline_ns,
                                       const gint  *cancel,
                                       GError     **error);

G_END_DECLS
