/* test-auth.c — the responder's access token and its refusals (tests/engine; issue 11).
 *
 * A responder on 127.0.0.1 (free port) on its own thread, with or without a token; our latency
 * and cycle clients against it; raw sockets for what a stranger or a flood would send.
 */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qf-admission.h"
#include "qf-auth.h"
#include "qf-clock.h"
#include "qf-cycle.h"
#include "qf-net.h"
#include "qf-responder.h"
#include "qf-sockperf.h"
#include "../qf-test-net.h"
#include "../qf-test-time.h"

#define TOKEN "correct horse battery staple 42"

typedef struct
{
  QfResponder *responder;
  GThread     *thread;
  gint         stop;
  guint16      port;
  GAsyncQueue *log;    /* lines from the responder's thread */
} Server;

static void
server_log (const char *line,
            gpointer    user_data)
{
  g_async_queue_push (((Server *) user_data)->log, g_strdup (line));
}

static gpointer
server_thread (gpointer data)
{
  Server *s = data;

  g_assert_true (qf_responder_run (s->responder, &s->stop, NULL));
  return NULL;
}

static Server *
server_start (const char *token,
              gboolean    allow_classic,
              guint       max_clients)
{
  Server *s = g_new0 (Server, 1);
  g_autoptr(GBytes) bytes = token != NULL ? g_bytes_new (token, strlen (token)) : NULL;
  g_autoptr(GError) error = NULL;
  QfResponderConfig config = {
    .bind_address = "127.0.0.1",
    .max_clients = max_clients,
    .token = bytes,
    .allow_classic = allow_classic,
    .log = server_log,
    .log_data = s,
  };

  s->log = g_async_queue_new_full (g_free);
  s->responder = qf_responder_new (&config, &error);
  g_assert_no_error (error);
  s->port = qf_responder_get_port (s->responder);
  s->thread = g_thread_new ("test-auth-responder", server_thread, s);
  return s;
}

/* Stops the server and returns its log. */
static char *
server_stop (Server *s)
{
  GString *log = g_string_new (NULL);
  char *line;

  g_atomic_int_set (&s->stop, 1);
  g_thread_join (s->thread);
  qf_responder_free (s->responder);
  while ((line = g_async_queue_try_pop (s->log)) != NULL)
    {
      g_string_append_printf (log, "%s\n", line);
      g_free (line);
    }
  g_async_queue_unref (s->log);
  g_free (s);
  return g_string_free (log, FALSE);
}

/* One short latency run; returns whether it measured, error set otherwise. */
static gboolean
run_latency (guint16              port,
             QfSockperfProtocol   protocol,
             const char          *token,
             GError             **error)
{
  g_autoptr(GBytes) bytes = token != NULL ? g_bytes_new (token, strlen (token)) : NULL;
  QfSockperfConfig config = {
    .host = "127.0.0.1",
    .port = port,
    .protocol = protocol,
    .msg_size = 14,
    .time_s = 0.1,
    .token = bytes,
  };
  g_autoptr(QfSockperfClient) client = qf_sockperf_client_new (&config, error);
  QfSockperfResult result;

  g_assert_nonnull (client);
  /* TRUE only when replies came back (how many fall in sockperf's window depends on load). */
  if (!qf_sockperf_client_run (client, NULL, NULL, NULL, NULL, &result, error))
    return FALSE;
  g_assert_cmpuint (result.sent, >, 0);
  return TRUE;
}

static gboolean
run_cycle (guint16      port,
           const char  *token,
           GError     **error)
{
  g_autoptr(GBytes) bytes = token != NULL ? g_bytes_new (token, strlen (token)) : NULL;
  QfCycleConfig config = {
    .host = "127.0.0.1",
    .port = port,
    .rate_hz = 200,
    .time_s = 0.1,
    .grace_ns = 200 * G_GINT64_CONSTANT (1000000),
    .token = bytes,
  };
  g_autoptr(QfCycleTest) test = qf_cycle_test_new (&config, error);
  QfCycleResult result;

  g_assert_nonnull (test);
  if (!qf_cycle_test_run (test, NULL, NULL, NULL, NULL, &result, error))
    return FALSE;
  g_assert_cmpuint (result.replies, >, 0);
  return TRUE;
}

static void
test_token_load (void)
{
  g_autofree char *dir = g_dir_make_tmp ("qf-auth-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "token", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) token = NULL;
  char big[QF_AUTH_TOKEN_MAX + 8];

  /* Owner-only, trailing newline stripped. */
  g_assert_true (g_file_set_contents (path, TOKEN "\r\n", -1, NULL));
  g_assert_cmpint (g_chmod (path, 0600), ==, 0);
  token = qf_auth_token_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (token, NULL), g_bytes_get_size (token), TOKEN, strlen (TOKEN));

  /* Group- or world-readable: refused with the fix, the token not in the message. */
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(GBytes) none = NULL;
      g_assert_cmpint (g_chmod (path, i == 0 ? 0640 : 0604), ==, 0);
      none = qf_auth_token_load (path, &error);
      g_assert_null (none);
      g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_PERMISSION);
      g_assert_nonnull (strstr (error->message, "chmod 600"));
      g_assert_nonnull (strstr (error->message, path));
      g_assert_null (strstr (error->message, "horse"));
      g_clear_error (&error);
    }

  /* Too short, too long, missing. */
  g_assert_true (g_file_set_contents (path, "short\n", -1, NULL));
  g_assert_cmpint (g_chmod (path, 0600), ==, 0);
  g_assert_null (qf_auth_token_load (path, &error));
  g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID);
  g_clear_error (&error);
  memset (big, 'x', sizeof big);
  g_assert_true (g_file_set_contents (path, big, sizeof big, NULL));
  g_assert_cmpint (g_chmod (path, 0600), ==, 0);
  g_assert_null (qf_auth_token_load (path, &error));
  g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID);
  g_clear_error (&error);
  g_remove (path);
  g_assert_null (qf_auth_token_load (path, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  /* A FIFO is refused at once (opening it must not wait for a writer). */
  g_assert_cmpint (mkfifo (path, 0600), ==, 0);
  g_assert_null (qf_auth_token_load (path, &error));
  g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID);
  g_remove (path);
  g_rmdir (dir);
}

static void
test_mac (void)
{
  g_autoptr(GBytes) a = g_bytes_new_static (TOKEN, strlen (TOKEN));
  g_autoptr(GBytes) b = g_bytes_new_static (TOKEN "x", strlen (TOKEN) + 1);
  guint8 nonce[QF_AUTH_NONCE_SIZE] = { 1, 2, 3 }, m1[QF_AUTH_MAC_SIZE], m2[QF_AUTH_MAC_SIZE];

  qf_auth_mac (a, TRUE, nonce, m1);
  qf_auth_mac (a, TRUE, nonce, m2);
  g_assert_true (qf_auth_equal (m1, m2, sizeof m1));
  /* Another token, another transport or another nonce: another answer. */
  qf_auth_mac (b, TRUE, nonce, m2);
  g_assert_false (qf_auth_equal (m1, m2, sizeof m1));
  qf_auth_mac (a, FALSE, nonce, m2);
  g_assert_false (qf_auth_equal (m1, m2, sizeof m1));
  nonce[31] = 1;
  qf_auth_mac (a, TRUE, nonce, m2);
  g_assert_false (qf_auth_equal (m1, m2, sizeof m1));
}

static void
test_token_required (void)
{
  Server *s = server_start (TOKEN, FALSE, 8);
  g_autoptr(GError) error = NULL;
  g_autofree char *log = NULL;
  QfSockperfProtocol protocols[] = { QF_SOCKPERF_TCP, QF_SOCKPERF_UDP };

  for (guint i = 0; i < G_N_ELEMENTS (protocols); i++)
    {
      /* The right token measures. */
      g_assert_true (run_latency (s->port, protocols[i], TOKEN, &error));
      g_assert_no_error (error);
      /* A wrong one is refused, saying so. */
      g_assert_false (run_latency (s->port, protocols[i], TOKEN "-wrong", &error));
      g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_PERMISSION);
      g_assert_nonnull (strstr (error->message, "refused the access token"));
      g_clear_error (&error);
      /* None: refused, saying a token is needed. */
      g_assert_false (run_latency (s->port, protocols[i], NULL, &error));
      g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_PERMISSION);
      g_assert_nonnull (strstr (error->message, "requires an access token"));
      g_clear_error (&error);
      /* UDP rejections are logged at most once a second. */
      g_usleep (1100 * 1000);
    }
  g_assert_true (run_cycle (s->port, TOKEN, &error));
  g_assert_no_error (error);
  g_assert_false (run_cycle (s->port, NULL, &error));
  g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_PERMISSION);
  g_clear_error (&error);
  g_usleep (1100 * 1000);
  g_assert_false (run_cycle (s->port, "another token, long enough", &error));
  g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_PERMISSION);

  log = server_stop (s);
  g_test_message ("%s", log);
  g_assert_nonnull (strstr (log, "refused: wrong access token"));
  g_assert_nonnull (strstr (log, "refused: no access token"));
  g_assert_nonnull (strstr (log, "rejected 127.0.0.1"));
  g_assert_null (strstr (log, "horse"));
}

static void
test_allow_classic_and_no_token (void)
{
  g_autoptr(GError) error = NULL;
  Server *s = server_start (TOKEN, TRUE, 8);
  g_autofree char *log = NULL, *log2 = NULL;

  /* --allow-classic: a client without a token is served, one with the token too. */
  g_assert_true (run_latency (s->port, QF_SOCKPERF_TCP, NULL, &error));
  g_assert_true (run_latency (s->port, QF_SOCKPERF_UDP, NULL, &error));
  g_assert_true (run_latency (s->port, QF_SOCKPERF_TCP, TOKEN, &error));
  /* ...but a wrong token is still refused. */
  g_assert_false (run_latency (s->port, QF_SOCKPERF_TCP, TOKEN "-wrong", &error));
  g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_PERMISSION);
  g_clear_error (&error);
  log = server_stop (s);

  /* A responder without a token accepts a client that brings one. */
  s = server_start (NULL, FALSE, 8);
  g_assert_true (run_latency (s->port, QF_SOCKPERF_TCP, TOKEN, &error));
  g_assert_true (run_latency (s->port, QF_SOCKPERF_UDP, TOKEN, &error));
  g_assert_true (run_cycle (s->port, TOKEN, &error));
  g_assert_no_error (error);
  log2 = server_stop (s);
}

/* What a stranger can make the UDP side send: never more bytes than it sent. */
static void
test_udp_no_amplification (void)
{
  Server *s = server_start (TOKEN, FALSE, 8);
  struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons (s->port),
                            .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  int fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  guint8 hello[QF_AUTH_HELLO_SIZE] = { 0 }, response[QF_AUTH_RESPONSE_SIZE] = { 0 };
  guint8 ping[14] = { 0 }, buf[2048];
  struct { const guint8 *data; gsize len; } sends[] = {
    { hello, sizeof hello },
    { response, sizeof response },
    { ping, sizeof ping },
  };
  g_autofree char *log = NULL;

  qf_auth_write (hello, QF_AUTH_HELLO, 0, 0, sizeof hello);
  qf_auth_write (response, QF_AUTH_RESPONSE, 0, 0, sizeof response);
  {
    QfSockperfHeader h = { 1, QF_SOCKPERF_FLAG_CLIENT | QF_SOCKPERF_FLAG_PONG_REQUEST, 14 };
    qf_sockperf_header_write (ping, &h);
  }
  g_assert_cmpint (connect (fd, (struct sockaddr *) &to, sizeof to), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (sends); i++)
    {
      struct pollfd pfd = { fd, POLLIN, 0 };
      ssize_t n;
      QfAuthMessage m;

      g_assert_cmpint (send (fd, sends[i].data, sends[i].len, 0), ==, (ssize_t) sends[i].len);
      g_assert_cmpint (poll (&pfd, 1, 2000), ==, 1);
      n = recv (fd, buf, sizeof buf, 0);
      g_assert_cmpint (n, >, 0);
      g_assert_cmpint (n, <=, (ssize_t) sends[i].len);
      g_assert_true (qf_auth_parse (buf, n, &m));
      /* HELLO → CHALLENGE; a RESPONSE with a forged nonce → REFUSE (wrong); a ping → REFUSE. */
      g_assert_cmpint (m.kind, ==, i == 0 ? QF_AUTH_CHALLENGE : QF_AUTH_REFUSE);
    }
  /* A datagram shorter than a refusal gets nothing. */
  {
    struct pollfd pfd = { fd, POLLIN, 0 };
    g_assert_cmpint (send (fd, ping, 10, 0), ==, 10);
    g_assert_cmpint (poll (&pfd, 1, 300), ==, 0);
  }
  close (fd);
  log = server_stop (s);
}

/* Clients beyond --max-clients are told the responder is busy (TCP and UDP), then served once
 * a slot is free. */
static void
test_busy (void)
{
  Server *s = server_start (NULL, FALSE, 1);
  struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons (s->port),
                            .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  int holder = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int udp_holder = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  guint8 ping[14], reply[64];
  QfSockperfHeader h = { 1, QF_SOCKPERF_FLAG_CLIENT | QF_SOCKPERF_FLAG_PONG_REQUEST, 14 };
  g_autoptr(GError) error = NULL;
  g_autofree char *log = NULL;

  /* One TCP client and one UDP peer hold the only slots (a UDP peer's lasts 2 s); the TCP one
   * holds it from its first request on. */
  g_assert_cmpint (connect (holder, (struct sockaddr *) &to, sizeof to), ==, 0);
  qf_sockperf_header_write (ping, &h);
  g_assert_cmpint (send (holder, ping, sizeof ping, 0), ==, sizeof ping);
  g_assert_cmpint (recv (holder, reply, sizeof ping, MSG_WAITALL), ==, sizeof ping);
  g_assert_cmpint (connect (udp_holder, (struct sockaddr *) &to, sizeof to), ==, 0);
  g_assert_cmpint (send (udp_holder, ping, sizeof ping, 0), ==, sizeof ping);
  g_assert_cmpint (recv (udp_holder, reply, sizeof reply, 0), ==, sizeof ping);
  g_usleep (100 * 1000);
  for (guint i = 0; i < 2; i++)
    {
      QfSockperfProtocol protocol = i == 0 ? QF_SOCKPERF_TCP : QF_SOCKPERF_UDP;
      g_assert_false (run_latency (s->port, protocol, NULL, &error));
      g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE);
      g_assert_nonnull (strstr (error->message, "busy: 1 client at most (serve --max-clients)"));
      g_clear_error (&error);
    }
  g_assert_cmpint (send (udp_holder, ping, sizeof ping, 0), ==, sizeof ping);
  g_assert_false (run_cycle (s->port, NULL, &error));
  g_assert_nonnull (strstr (error->message, "busy"));
  g_clear_error (&error);
  close (holder);
  close (udp_holder);
  g_usleep (300 * 1000);
  g_assert_true (run_latency (s->port, QF_SOCKPERF_TCP, NULL, &error));
  g_assert_no_error (error);
  log = server_stop (s);
  g_assert_nonnull (strstr (log, "too many clients"));
}

/* A connection that never proves the token is closed after 2 s (QF_ADMISSION_DEADLINE_NS). */
static void
test_stranger_dropped (void)
{
  Server *s = server_start (TOKEN, FALSE, 1);
  struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons (s->port),
                            .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct pollfd pfd = { fd, POLLIN, 0 };
  guint8 buf[64];
  g_autoptr(GError) error = NULL;
  g_autofree char *log = NULL;

  g_assert_cmpint (connect (fd, (struct sockaddr *) &to, sizeof to), ==, 0);
  g_assert_cmpint (poll (&pfd, 1, 15000), ==, 1);
  g_assert_cmpint (recv (fd, buf, sizeof buf, 0), ==, 0);
  close (fd);
  g_assert_true (run_latency (s->port, QF_SOCKPERF_TCP, TOKEN, &error));
  g_assert_no_error (error);
  log = server_stop (s);
  g_assert_nonnull (strstr (log, "no access token within 2 s"));
}

static int
tcp_connect (guint16 port)
{
  struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons (port),
                            .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

  g_assert_cmpint (connect (fd, (struct sockaddr *) &to, sizeof to), ==, 0);
  return fd;
}

/* More idle connections than --max-clients and than one source may keep waiting hold no slot:
 * a client that proves itself (the token, or without one its first request) is served at once,
 * and every idle connection is closed within the admission deadline. */
static void
idle_connections_hold_nothing (const char *token)
{
  enum { N_IDLE = QF_ADMISSION_PER_SOURCE + 8 };
  Server *s = server_start (token, FALSE, 4);
  g_autoptr(GError) error = NULL;
  g_autofree char *log = NULL;
  int idle[N_IDLE];
  gint64 t0 = qf_clock_now_ns ();

  for (guint i = 0; i < N_IDLE; i++)
    idle[i] = tcp_connect (s->port);
  g_usleep (100 * 1000);   /* all accepted */
  for (guint round = 0; round < 2; round++)
    {
      gint64 t1 = qf_clock_now_ns ();
      g_assert_true (run_latency (s->port, QF_SOCKPERF_TCP, token, &error));
      g_assert_no_error (error);
      g_assert_cmpint (qf_clock_now_ns () - t1, <, qf_test_ns (QF_NSEC_PER_SEC));
    }
  for (guint i = 0; i < N_IDLE; i++)
    {
      g_assert_true (qf_test_closed_by (idle[i], t0 + QF_ADMISSION_DEADLINE_NS
                                         + qf_test_ns (QF_NSEC_PER_SEC)));
      close (idle[i]);
    }
  log = server_stop (s);
  g_assert_null (strstr (log, "too many clients"));
}

static void
test_idle_with_token (void)
{
  idle_connections_hold_nothing (TOKEN);
}

static void
test_idle_without_token (void)
{
  idle_connections_hold_nothing (NULL);
}

/* A flood of connections that each earn a log line (here a malformed first message) writes a
 * bounded number of lines, and one line says how many were left out. */
static void
test_log_rate (void)
{
  Server *s = server_start (NULL, FALSE, 4);
  QfSockperfHeader h = { 1, QF_SOCKPERF_FLAG_CLIENT | QF_SOCKPERF_FLAG_PONG_REQUEST, 5 };
  guint8 bad[14];
  g_autofree char *log = NULL;
  g_auto(GStrv) lines = NULL;
  guint dropped = 0;

  qf_sockperf_header_write (bad, &h);
  for (guint i = 0; i < 200; i++)
    {
      int fd = tcp_connect (s->port);
      g_assert_cmpint (send (fd, bad, sizeof bad, 0), ==, sizeof bad);
      g_assert_true (qf_test_closed_by (fd, qf_clock_now_ns () + qf_test_ns (3 * QF_NSEC_PER_SEC)));
      close (fd);
    }
  log = server_stop (s);
  lines = g_strsplit (log, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    dropped += strstr (lines[i], "announces") != NULL;
  g_test_message ("%u lines for 200 connections", g_strv_length (lines) - 1);
  g_assert_cmpuint (dropped, >=, 1);
  g_assert_cmpuint (dropped, <=, QF_LOG_LIMIT_BURST + 5);
  g_assert_nonnull (strstr (log, "left out of the log"));
}

typedef struct
{
  int         fd;
  const char *token;
  const char *cookie;
  gboolean    ok;
} BwClient;

static gpointer
bw_client_thread (gpointer data)
{
  BwClient *c = data;
  g_autoptr(GBytes) token = g_bytes_new (c->token, strlen (c->token));
  guint8 state = 0;

  g_assert_cmpint (recv (c->fd, &state, 1, MSG_WAITALL), ==, 1);
  g_assert_cmpint (state, ==, QF_AUTH_BW_CHALLENGE_STATE);
  c->ok = qf_auth_bw_client_answer (c->fd, token, c->cookie,
                                    g_get_monotonic_time () * 1000 + 5 * G_GINT64_CONSTANT (1000000000),
                                    NULL, NULL);
  return NULL;
}

/* The bandwidth port's exchange over a socket pair: the right token passes, a wrong one or
 * another cookie does not; a marked cookie is recognised. */
static void
test_bandwidth_exchange (void)
{
  g_autoptr(GBytes) token = g_bytes_new_static (TOKEN, strlen (TOKEN));
  char cookie[37] = "abcdefghijklmnopqrstuvwxyz2345672345";
  struct { const char *client_token; const char *client_cookie; gboolean pass; } cases[] = {
    { TOKEN, NULL, TRUE },
    { TOKEN "-wrong", NULL, FALSE },
    { TOKEN, "qfa1efghijklmnopqrstuvwxyz2345672346", FALSE },
  };

  g_assert_false (qf_auth_bw_cookie_is_marked (cookie));
  qf_auth_bw_mark_cookie (cookie);
  g_assert_true (qf_auth_bw_cookie_is_marked (cookie));
  g_assert_cmpuint (strlen (cookie), ==, 36);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      int sv[2];
      BwClient c = { 0 };
      GThread *thread;
      guint8 challenge[QF_AUTH_BW_CHALLENGE_SIZE], answer[QF_AUTH_MAC_SIZE];
      g_autoptr(GError) error = NULL;
      gboolean ok;

      g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), ==, 0);
      c.fd = sv[1];
      c.token = cases[i].client_token;
      c.cookie = cases[i].client_cookie != NULL ? cases[i].client_cookie : cookie;
      thread = g_thread_new ("bw-client", bw_client_thread, &c);
      /* The server's side as the responder's loop does it: the challenge out, the answer in. */
      g_assert_true (qf_auth_bw_challenge (challenge, &error));
      g_assert_no_error (error);
      g_assert_cmpint (challenge[0], ==, QF_AUTH_BW_CHALLENGE_STATE);
      g_assert_cmpint (send (sv[0], challenge, sizeof challenge, 0), ==, sizeof challenge);
      g_assert_cmpint (recv (sv[0], answer, sizeof answer, MSG_WAITALL), ==, sizeof answer);
      ok = qf_auth_bw_answer_ok (token, challenge, cookie, answer);
      g_thread_join (thread);
      g_assert_true (c.ok);
      g_assert_cmpint (ok, ==, cases[i].pass);
      close (sv[0]);
      close (sv[1]);
    }
}

/* The one server-side check (QfAuthServer) on every port: the policy of qf_auth_server_admit,
 * and qf_auth_server_check against the client's own answer, another token, another transport,
 * another address, a stale or future UDP nonce and another bandwidth cookie. */
static void
test_server_check (void)
{
  g_autoptr(GBytes) token = g_bytes_new_static (TOKEN, strlen (TOKEN));
  g_autoptr(GBytes) other = g_bytes_new_static (TOKEN "x", strlen (TOKEN) + 1);
  g_autoptr(GError) error = NULL;
  QfAuthServer open_auth, auth, classic;
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons (4000) }, b = a;
  guint8 challenge[QF_AUTH_CHALLENGE_SIZE], mac[QF_AUTH_MAC_SIZE], stale[QF_AUTH_NONCE_SIZE];
  guint8 bw_challenge[QF_AUTH_BW_CHALLENGE_SIZE];
  char cookie[37] = "qfa1efghijklmnopqrstuvwxyz2345672345";
  gint64 t0;
  QfAuthAnswer answer = { 0 };

  a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  b.sin_addr.s_addr = htonl (INADDR_LOOPBACK + 1);
  g_assert_true (qf_auth_server_init (&open_auth, NULL, FALSE, &error));
  g_assert_true (qf_auth_server_init (&auth, token, FALSE, &error));
  g_assert_true (qf_auth_server_init (&classic, token, TRUE, &error));
  g_assert_no_error (error);

  /* Who is served, challenged or refused. */
  g_assert_cmpint (qf_auth_server_admit (&open_auth, TRUE), ==, QF_AUTH_ADMIT_OPEN);
  g_assert_cmpint (qf_auth_server_admit (&open_auth, FALSE), ==, QF_AUTH_ADMIT_OPEN);
  g_assert_cmpint (qf_auth_server_admit (&auth, TRUE), ==, QF_AUTH_ADMIT_CHALLENGE);
  g_assert_cmpint (qf_auth_server_admit (&auth, FALSE), ==, QF_AUTH_ADMIT_REFUSE);
  g_assert_cmpint (qf_auth_server_admit (&classic, TRUE), ==, QF_AUTH_ADMIT_CHALLENGE);
  g_assert_cmpint (qf_auth_server_admit (&classic, FALSE), ==, QF_AUTH_ADMIT_OPEN);

  /* TCP: the nonce issued, and the MAC of the token over it for TCP. */
  g_assert_true (qf_auth_server_challenge (&auth, QF_AUTH_CHANNEL_TCP, NULL, 0, 0, challenge,
                                           &error));
  answer.channel = QF_AUTH_CHANNEL_TCP;
  answer.issued = challenge + QF_AUTH_HEADER_SIZE;
  answer.echoed = challenge + QF_AUTH_HEADER_SIZE;
  answer.mac = mac;
  qf_auth_mac (token, TRUE, answer.issued, mac);
  g_assert_true (qf_auth_server_check (&auth, &answer));
  qf_auth_mac (other, TRUE, answer.issued, mac);
  g_assert_false (qf_auth_server_check (&auth, &answer));
  qf_auth_mac (token, FALSE, answer.issued, mac);
  g_assert_false (qf_auth_server_check (&auth, &answer));
  qf_auth_mac (token, TRUE, answer.issued, mac);
  memset (stale, 0, sizeof stale);
  answer.echoed = stale;   /* the right MAC, but not the nonce this server sent */
  g_assert_false (qf_auth_server_check (&auth, &answer));

  /* UDP: the server keeps nothing; the nonce must be its own for that address and fresh. */
  t0 = auth.start_ns + 10 * QF_NSEC_PER_SEC;
  g_assert_true (qf_auth_server_challenge (&auth, QF_AUTH_CHANNEL_UDP, (struct sockaddr *) &a,
                                           sizeof a, t0, challenge, &error));
  answer = (QfAuthAnswer) {
    .channel = QF_AUTH_CHANNEL_UDP,
    .echoed = challenge + QF_AUTH_HEADER_SIZE,
    .mac = mac,
    .addr = (struct sockaddr *) &a,
    .addr_len = sizeof a,
    .now_ns = t0 + QF_AUTH_NONCE_LIFETIME_S * QF_NSEC_PER_SEC,
  };
  qf_auth_mac (token, FALSE, answer.echoed, mac);
  g_assert_true (qf_auth_server_check (&auth, &answer));
  answer.now_ns += QF_NSEC_PER_SEC;   /* one second too old */
  g_assert_false (qf_auth_server_check (&auth, &answer));
  answer.now_ns = t0 - QF_NSEC_PER_SEC;   /* from the future */
  g_assert_false (qf_auth_server_check (&auth, &answer));
  answer.now_ns = t0;
  answer.addr = (struct sockaddr *) &b;   /* another client's */
  g_assert_false (qf_auth_server_check (&auth, &answer));
  answer.addr = (struct sockaddr *) &a;
  g_assert_false (qf_auth_server_check (&classic, &answer));   /* another server's secret */
  qf_auth_mac (token, TRUE, answer.echoed, mac);
  g_assert_false (qf_auth_server_check (&auth, &answer));   /* answered for TCP */

  /* Bandwidth: the MAC over the nonce and the cookie. */
  g_assert_true (qf_auth_bw_challenge (bw_challenge, &error));
  answer = (QfAuthAnswer) {
    .channel = QF_AUTH_CHANNEL_BANDWIDTH,
    .issued = bw_challenge + 1,
    .mac = mac,
    .cookie = cookie,
  };
  qf_auth_mac (token, TRUE, answer.issued, mac);   /* a latency answer is no bandwidth answer */
  g_assert_false (qf_auth_server_check (&auth, &answer));
  g_assert_false (qf_auth_bw_answer_ok (token, bw_challenge, cookie, mac));
  g_assert_no_error (error);

  qf_auth_server_clear (&open_auth);
  qf_auth_server_clear (&auth);
  qf_auth_server_clear (&classic);
  g_assert_null (auth.token);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/auth/token-load", test_token_load);
  g_test_add_func ("/engine/auth/mac", test_mac);
  g_test_add_func ("/engine/auth/server-check", test_server_check);
  g_test_add_func ("/engine/auth/token-required", test_token_required);
  g_test_add_func ("/engine/auth/allow-classic-and-no-token", test_allow_classic_and_no_token);
  g_test_add_func ("/engine/auth/udp-no-amplification", test_udp_no_amplification);
  g_test_add_func ("/engine/auth/busy", test_busy);
  g_test_add_func ("/engine/auth/stranger-dropped", test_stranger_dropped);
  g_test_add_func ("/engine/auth/idle-with-token", test_idle_with_token);
  g_test_add_func ("/engine/auth/idle-without-token", test_idle_without_token);
  g_test_add_func ("/engine/auth/log-rate", test_log_rate);
  g_test_add_func ("/engine/auth/bandwidth-exchange", test_bandwidth_exchange);
  return g_test_run ();
}
