/* test-bandwidth.c — the bandwidth client against our iperf3-compatible responder on loopback,
 * the responder against broken clients, and the bounded JSON reader (tests/engine).
 * Figures are checked for consistency (counts add up, both sides agree), never for speed. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qf-bandwidth.h"
#include "qf-iperf3-private.h"
#include "qf-iperf3-proto-private.h"
#include "qf-clock.h"
#include "qf-admission.h"
#include "qf-iperf3.h"
#include "qf-minijson.h"
#include "../qf-test-net.h"
#include "../qf-test-time.h"

typedef struct
{
  QfIperf3Server *server;
  GThread        *thread;
  gint            cancel;
  guint16         port;
  GMutex          log_lock;
  GString        *log;
} Responder;

static void
responder_log (const char *line,
               gpointer    user_data)
{
  Responder *r = user_data;

  g_mutex_lock (&r->log_lock);
  g_string_append_printf (r->log, "%s\n", line);
  g_mutex_unlock (&r->log_lock);
}

static gpointer
responder_thread (gpointer data)
{
  Responder *r = data;
  g_autoptr(GError) error = NULL;

  qf_iperf3_server_run (r->server, &r->cancel, &error);
  g_assert_no_error (error);
  return NULL;
}

/* idle_s 0 = the default 120 s; max_clients, max_test_s 0 = no limits. */
static Responder *
responder_start_full (gdouble idle_s,
                      guint   max_clients,
                      guint   max_test_s)
{
  Responder *r = g_new0 (Responder, 1);
  g_autoptr(GError) error = NULL;

  r->server = qf_iperf3_server_new ("127.0.0.1", 0, &error);
  g_assert_no_error (error);
  r->port = qf_iperf3_server_get_port (r->server);
  g_assert_cmpuint (r->port, >, 0);
  g_mutex_init (&r->log_lock);
  r->log = g_string_new (NULL);
  qf_iperf3_server_set_log (r->server, responder_log, r);
  if (idle_s > 0)
    _qf_iperf3_server_set_idle_timeout (r->server, idle_s);
  qf_iperf3_server_set_limits (r->server, max_clients, max_test_s);
  r->thread = g_thread_new ("responder", responder_thread, r);
  return r;
}

static Responder *
responder_start (void)
{
  return responder_start_full (0, 0, 0);
}

/* Stops the responder and returns its log. */
static char *
responder_stop_log (Responder *r)
{
  gint64 t0 = qf_clock_now_ns ();
  char *log;

  g_atomic_int_set (&r->cancel, 1);
  g_thread_join (r->thread);
  g_assert_cmpint (qf_clock_now_ns () - t0, <, qf_test_ns (QF_NSEC_PER_SEC));
  qf_iperf3_server_free (r->server);
  log = g_string_free (r->log, FALSE);
  g_mutex_clear (&r->log_lock);
  g_free (r);
  return log;
}

static void
responder_stop (Responder *r)
{
  g_free (responder_stop_log (r));
}

static QfBwConfig
base_config (guint16 port)
{
  QfBwConfig c = { 0 };

  c.host = "127.0.0.1";
  c.port = port;
  c.protocol = QF_BW_TCP;
  c.direction = QF_BW_UP;
  c.parallel = 1;
  c.time_s = 1.0;
  c.interval_s = 0.25;
  c.connect_timeout_s = 2;
  return c;
}

static gboolean
run_client (const QfBwConfig *config,
            const gint       *cancel,
            QfBwResult       *result,
            GError          **error)
{
  g_autoptr(QfBwClient) client = qf_bw_client_new (config, error);

  if (client == NULL)
    return FALSE;
  return qf_bw_client_run (client, cancel, result, error);
}

static void
check_intervals (const QfBwResult *r,
                 gdouble           time_s,
                 gdouble           interval_s)
{
  gdouble prev = 0;

  g_assert_nonnull (r->intervals);
  g_assert_cmpuint (r->intervals->len, >=, (guint) (time_s / interval_s) - 1);
  g_assert_cmpuint (r->intervals->len, <=, (guint) (time_s / interval_s) + 1);
  for (guint i = 0; i < r->intervals->len; i++)
    {
      const QfBwInterval *iv = &g_array_index (r->intervals, QfBwInterval, i);
      g_assert_cmpfloat (iv->t_s, >, prev);
      g_assert_cmpfloat (iv->mbps, >=, 0);
      g_assert_cmpfloat_with_epsilon (iv->mbps, iv->up_mbps + iv->down_mbps, 1e-6);
      prev = iv->t_s;
    }
  g_assert_cmpfloat (prev, <=, time_s + qf_test_s (0.2));
}

static void
run_mode (QfBwProtocol  protocol,
          QfBwDirection direction,
          guint         parallel)
{
  gboolean ok;
  Responder *resp = responder_start ();
  QfBwConfig c = base_config (resp->port);
  g_autoptr(QfRing) ring = qf_ring_new (256);
  QfBwResult r = { 0 };
  g_autoptr(GError) error = NULL;
  QfSample samples[256];
  guint n;

  c.protocol = protocol;
  c.direction = direction;
  c.parallel = parallel;
  c.ring = ring;
  if (protocol == QF_BW_UDP)
    c.bitrate_bps = 20 * 1000 * 1000;
  ok = run_client (&c, NULL, &r, &error);
  g_assert_no_error (error);   /* first, so a failure prints its message */
  g_assert_true (ok);

  g_assert_true (r.peer_is_qualify);
  g_assert_cmpuint (r.streams, ==, parallel);
  g_assert_cmpfloat (r.duration_s, >, 0.8);
  g_assert_cmpfloat (r.duration_s, <, 1.0 + qf_test_s (0.2));
  g_assert_cmpfloat (r.sent_mbps, >, 0);
  g_assert_cmpfloat (r.received_mbps, >, 0);
  /* Nothing arrives that was not sent (the rates use each side's own clock, so compare bytes). */
  g_assert_cmpuint (r.bytes_received, >, 0);
  g_assert_cmpuint (r.bytes_received, <=, r.bytes_sent);
  if (direction != QF_BW_DOWN)
    g_assert_cmpfloat (r.up_mbps, >, 0);
  else
    g_assert_cmpfloat (r.up_mbps, ==, 0);
  if (direction != QF_BW_UP)
    g_assert_cmpfloat (r.down_mbps, >, 0);
  else
    g_assert_cmpfloat (r.down_mbps, ==, 0);
  check_intervals (&r, 1.0, 0.25);

  if (protocol == QF_BW_TCP)
    {
      g_assert_cmpint (r.retransmits, >=, 0);
      g_assert_cmpfloat (r.jitter_ms, ==, -1);
      g_assert_cmpuint (r.len % 1, ==, 0);
      /* On loopback the MSS is 65483: the default block is whole segments. */
      g_assert_cmpuint (r.len, >, 0);
    }
  else
    {
      /* Paced at 20 Mbit/s per stream: the senders keep the rate within a few percent. A starved
       * sender (a slow sanitizer build on a loaded machine) falls short, never over. */
      gdouble per_dir = 20.0 * parallel * (direction == QF_BW_BIDIR ? 2 : 1);
      g_assert_cmpfloat (r.sent_mbps, >, per_dir * 0.8 / qf_test_time_scale ());
      g_assert_cmpfloat (r.sent_mbps, <, per_dir * 1.2);
      g_assert_cmpfloat (r.jitter_ms, >=, 0);
      g_assert_cmpfloat (r.lost_pct, >=, 0);
      g_assert_cmpfloat (r.lost_pct, <=, 100);
      g_assert_cmpuint (r.total_packets, >, 0);
      g_assert_cmpuint (r.lost_packets, <=, r.total_packets);
    }
  if (r.have_iface)
    {
      g_assert_cmpstr (r.iface, ==, "lo");
      g_assert_cmpfloat (r.rx_kBps, >, 0);
    }

  n = qf_ring_pop (ring, samples, G_N_ELEMENTS (samples));
  g_assert_cmpuint (n, ==, r.intervals->len * (direction == QF_BW_BIDIR ? 3 : 1));
  for (guint i = 1; i < n; i++)
    g_assert_cmpint (samples[i].t_ns, >=, samples[i - 1].t_ns);

  qf_bw_result_clear (&r);
  /* The responder counts the test once it has read IPERF_DONE, just after our client returns. */
  for (int i = 0; i < 200 && qf_iperf3_server_tests_done (resp->server) == 0; i++)
    g_usleep (10000);
  g_assert_cmpuint (qf_iperf3_server_tests_done (resp->server), ==, 1);
  responder_stop (resp);
}

static void test_tcp_up (void) { run_mode (QF_BW_TCP, QF_BW_UP, 1); }
static void test_tcp_down (void) { run_mode (QF_BW_TCP, QF_BW_DOWN, 1); }
static void test_tcp_bidir (void) { run_mode (QF_BW_TCP, QF_BW_BIDIR, 1); }
static void test_tcp_parallel (void) { run_mode (QF_BW_TCP, QF_BW_UP, 3); }
static void test_udp_up (void) { run_mode (QF_BW_UDP, QF_BW_UP, 1); }
static void test_udp_down (void) { run_mode (QF_BW_UDP, QF_BW_DOWN, 2); }
static void test_udp_bidir (void) { run_mode (QF_BW_UDP, QF_BW_BIDIR, 1); }

static void
test_omit (void)
{
  gboolean ok;
  Responder *resp = responder_start ();
  QfBwConfig c = base_config (resp->port);
  QfBwResult r = { 0 };
  g_autoptr(GError) error = NULL;
  gint64 t0 = qf_clock_now_ns ();

  c.omit_s = 0.5;
  ok = run_client (&c, NULL, &r, &error);
  g_assert_no_error (error);   /* first, so a failure prints its message */
  g_assert_true (ok);
  /* Omitted time is run but neither counted nor sampled. The counted window starts when the
   * client sees the omit end, which a starved thread sees late (0.55 s counted under TSan). */
  g_assert_cmpint (qf_clock_now_ns () - t0, >=, 1500 * QF_NSEC_PER_MSEC);
  g_assert_cmpfloat (r.duration_s, >, 1.0 - qf_test_s (0.2));
  g_assert_cmpfloat (r.duration_s, <, 1.0 + qf_test_s (0.2));
  check_intervals (&r, 1.0, 0.25);
  qf_bw_result_clear (&r);
  responder_stop (resp);
}

/* ---- the responder against broken clients ---- */

static int
raw_connect (guint16 port)
{
  struct sockaddr_in a = { 0 };
  int fd = socket (AF_INET, SOCK_STREAM, 0);

  a.sin_family = AF_INET;
  a.sin_port = htons (port);
  a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  g_assert_cmpint (connect (fd, (struct sockaddr *) &a, sizeof a), ==, 0);
  return fd;
}

static signed char
read_byte (int fd)
{
  struct pollfd pfd = { fd, POLLIN, 0 };
  signed char b = 0;

  g_assert_cmpint (poll (&pfd, 1, 5000), ==, 1);
  g_assert_cmpint (recv (fd, &b, 1, 0), ==, 1);
  return b;
}

static void
send_json_block (int         fd,
                 const char *text,
                 guint32     announced)
{
  guint32 be = htonl (announced);

  g_assert_cmpint (send (fd, &be, 4, 0), ==, 4);
  if (text[0] != '\0')
    g_assert_cmpint (send (fd, text, strlen (text), 0), ==, (gssize) strlen (text));
}

/* The cookie of every hand-played client: 36 × 'a' and a NUL. */
static const char raw_cookie[37] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

/* Plays an iperf3 client up to the responder's answer to its parameters: connects, sends the
 * cookie, waits for PARAM_EXCHANGE and sends params. Returns the control socket, whose next
 * byte is the answer (CREATE_STREAMS 10, SERVER_ERROR -2 …). */
static int
raw_client_params (guint16     port,
                   const char *params)
{
  int ctrl = raw_connect (port);

  g_assert_cmpint (send (ctrl, raw_cookie, 37, 0), ==, 37);
  g_assert_cmpint (read_byte (ctrl), ==, 9);            /* PARAM_EXCHANGE */
  send_json_block (ctrl, params, strlen (params));
  return ctrl;
}

static void
assert_next_client_served (Responder *resp)
{
  QfBwConfig c = base_config (resp->port);
  QfBwResult r = { 0 };
  g_autoptr(GError) error = NULL;

  c.time_s = 0.5;
  run_client (&c, NULL, &r, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (r.received_mbps, >, 0);
  qf_bw_result_clear (&r);
}

static void
test_bad_params (void)
{
  static const char *const bad[] = {
    "{\"tcp\":true,\"parallel\":",                       /* truncated */
    "[1,2,3]",                                          /* not an object */
    "{\"tcp\":true,\"parallel\":1000,\"len\":1000}",    /* out of range */
    "{\"sctp\":true,\"len\":1000}",                     /* unsupported protocol */
    "{\"tcp\":true,\"len\":\"big\"}",                   /* wrong type */
  };
  Responder *resp = responder_start ();

  for (guint i = 0; i < G_N_ELEMENTS (bad) + 1; i++)
    {
      int fd = raw_connect (resp->port);
      signed char b;

      g_assert_cmpint (send (fd, raw_cookie, 37, 0), ==, 37);
      g_assert_cmpint (read_byte (fd), ==, 9);
      if (i < G_N_ELEMENTS (bad))
        send_json_block (fd, bad[i], strlen (bad[i]));
      else
        send_json_block (fd, "", 100 * 1024 * 1024);    /* announces 100 MiB: never allocated */
      b = read_byte (fd);
      g_assert_cmpint (b, ==, -2);                      /* SERVER_ERROR */
      close (fd);
    }
  g_assert_cmpuint (qf_iperf3_server_refused (resp->server), ==, G_N_ELEMENTS (bad) + 1);
  assert_next_client_served (resp);
  responder_stop (resp);
}

static void
test_wrong_cookie (void)
{
  static const char params[] = "{\"tcp\":true,\"omit\":0,\"time\":1,\"num\":0,\"blockcount\":0,"
                               "\"parallel\":1,\"len\":131072,\"client_version\":\"3.12\"}";
  Responder *resp = responder_start ();
  char wrong[37];
  int ctrl, stream;

  memset (wrong, 'b', 36);
  wrong[36] = '\0';
  ctrl = raw_client_params (resp->port, params);
  g_assert_cmpint (read_byte (ctrl), ==, 10);           /* CREATE_STREAMS */

  stream = raw_connect (resp->port);
  g_assert_cmpint (send (stream, wrong, 37, 0), ==, 37);
  g_assert_cmpint (read_byte (stream), ==, -1);         /* ACCESS_DENIED */
  close (stream);
  /* A second control connection during the test is turned away too. */
  close (ctrl);
  assert_next_client_served (resp);
  g_assert_cmpuint (qf_iperf3_server_refused (resp->server), >=, 1);
  responder_stop (resp);
}

static void
test_busy (void)
{
  static const char params[] = "{\"tcp\":true,\"omit\":0,\"time\":1,\"num\":0,\"blockcount\":0,"
                               "\"parallel\":1,\"len\":131072,\"client_version\":\"3.12\"}";
  Responder *resp = responder_start ();
  QfBwConfig c = base_config (resp->port);
  QfBwResult r = { 0 };
  g_autoptr(GError) error = NULL;
  int ctrl;

  ctrl = raw_client_params (resp->port, params);
  g_assert_cmpint (read_byte (ctrl), ==, 10);

  /* While this half-open test holds the responder, a client is refused as busy. */
  g_assert_false (run_client (&c, NULL, &r, &error));
  g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_BUSY);
  qf_bw_result_clear (&r);
  close (ctrl);
  assert_next_client_served (resp);
  responder_stop (resp);
}

static guint32
read_be32 (int fd)
{
  guint32 v = 0;
  gsize got = 0;

  while (got < 4)
    {
      struct pollfd pfd = { fd, POLLIN, 0 };
      ssize_t n;

      g_assert_cmpint (poll (&pfd, 1, 5000), ==, 1);
      n = recv (fd, (char *) &v + got, 4 - got, 0);
      g_assert_cmpint (n, >, 0);
      got += n;
    }
  return ntohl (v);
}

/* Plays an iperf3 UDP client by hand and sends sequence numbers 1 2 4 3 6 7 9 9: the responder
 * must count as iperf3 does — packets = highest sequence (9); gaps add to the loss (3 at 4,
 * 5 at 6, 8 at 9), and each late or repeated packet takes one back (3, the second 9): 1. */
static void
test_udp_accounting (void)
{
  static const char params[] = "{\"udp\":true,\"omit\":0,\"time\":1,\"num\":0,\"blockcount\":0,"
                               "\"parallel\":1,\"len\":100,\"bandwidth\":1000000,"
                               "\"client_version\":\"3.12\"}";
  static const char results[] = "{\"cpu_util_total\":0,\"cpu_util_user\":0,\"cpu_util_system\":0,"
                                "\"sender_has_retransmits\":0,\"streams\":[{\"id\":1,\"bytes\":700,"
                                "\"retransmits\":-1,\"jitter\":0,\"errors\":0,\"packets\":7}]}";
  static const guint32 seqs[] = { 1, 2, 4, 3, 6, 7, 9, 9 };
  static const guchar hello[4] = { 0x39, 0x38, 0x37, 0x36 };
  Responder *resp = responder_start ();
  struct sockaddr_in a = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(QfMiniJson) j = NULL;
  g_autofree char *text = NULL;
  const QfMiniJson *stream;
  char reply[4], pkt[100];
  int ctrl, udp;
  guint32 len;

  ctrl = raw_client_params (resp->port, params);
  g_assert_cmpint (read_byte (ctrl), ==, 10);

  udp = socket (AF_INET, SOCK_DGRAM, 0);
  a.sin_family = AF_INET;
  a.sin_port = htons (resp->port);
  a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  g_assert_cmpint (connect (udp, (struct sockaddr *) &a, sizeof a), ==, 0);
  g_assert_cmpint (send (udp, hello, 4, 0), ==, 4);
  {
    struct pollfd pfd = { udp, POLLIN, 0 };
    g_assert_cmpint (poll (&pfd, 1, 5000), ==, 1);
  }
  g_assert_cmpint (recv (udp, reply, 4, 0), ==, 4);
  g_assert_cmpint (memcmp (reply, "6789", 4), ==, 0);
  g_assert_cmpint (read_byte (ctrl), ==, 1);            /* TEST_START */
  g_assert_cmpint (read_byte (ctrl), ==, 2);            /* TEST_RUNNING */

  memset (pkt, 0, sizeof pkt);
  for (guint i = 0; i < G_N_ELEMENTS (seqs); i++)
    {
      gint64 now_us = g_get_monotonic_time ();
      guint32 be;

      be = htonl ((guint32) (now_us / G_USEC_PER_SEC));
      memcpy (pkt, &be, 4);
      be = htonl ((guint32) (now_us % G_USEC_PER_SEC));
      memcpy (pkt + 4, &be, 4);
      be = htonl (seqs[i]);
      memcpy (pkt + 8, &be, 4);
      g_assert_cmpint (send (udp, pkt, sizeof pkt, 0), ==, sizeof pkt);
      g_usleep (2000);
    }
  g_usleep (100 * 1000);
  g_assert_cmpint (send (ctrl, "\x04", 1, 0), ==, 1);   /* TEST_END */
  g_assert_cmpint (read_byte (ctrl), ==, 13);           /* EXCHANGE_RESULTS */
  send_json_block (ctrl, results, strlen (results));
  len = read_be32 (ctrl);
  g_assert_cmpuint (len, >, 0);
  g_assert_cmpuint (len, <, 65536);
  text = g_malloc (len);
  for (guint32 got = 0; got < len;)
    {
      ssize_t n = recv (ctrl, text + got, len - got, 0);
      g_assert_cmpint (n, >, 0);
      got += n;
    }
  j = qf_minijson_parse (text, len, &error);
  g_assert_no_error (error);
  stream = qf_minijson_index (qf_minijson_get (j, "streams"), 0);
  g_assert_nonnull (stream);
  g_assert_cmpint (qf_minijson_int (qf_minijson_get (stream, "id"), 0), ==, 1);
  g_assert_cmpint (qf_minijson_int (qf_minijson_get (stream, "bytes"), 0), ==, 800);
  g_assert_cmpint (qf_minijson_int (qf_minijson_get (stream, "packets"), 0), ==, 9);
  g_assert_cmpint (qf_minijson_int (qf_minijson_get (stream, "errors"), -1), ==, 1);
  g_assert_cmpint (qf_minijson_int (qf_minijson_get (stream, "retransmits"), 0), ==, -1);
  g_assert_cmpfloat (qf_minijson_double (qf_minijson_get (stream, "jitter"), -1), >=, 0);
  g_assert_cmpint (qf_minijson_int (qf_minijson_get (j, "sender_has_retransmits"), 0), ==, -1);
  g_assert_nonnull (qf_minijson_string (qf_minijson_get (j, "qualify_version")));
  g_assert_cmpint (read_byte (ctrl), ==, 14);           /* DISPLAY_RESULTS */
  g_assert_cmpint (send (ctrl, "\x10", 1, 0), ==, 1);   /* IPERF_DONE */
  close (udp);
  close (ctrl);
  for (int i = 0; i < 200 && qf_iperf3_server_tests_done (resp->server) == 0; i++)
    g_usleep (10000);
  g_assert_cmpuint (qf_iperf3_server_tests_done (resp->server), ==, 1);
  responder_stop (resp);
}

/* ---- failures on the client side ---- */

static gpointer
kill_later (gpointer data)
{
  g_usleep (G_USEC_PER_SEC);
  kill (GPOINTER_TO_INT (data), SIGKILL);
  return NULL;
}

static const char slow_params[] = "{\"tcp\":true,\"omit\":0,\"time\":30,\"num\":0,\"blockcount\":0,"
                                  "\"parallel\":1,\"len\":131072,\"client_version\":\"3.12\"}";

static gboolean
log_has (Responder  *r,
         const char *needle)
{
  gboolean found;

  g_mutex_lock (&r->log_lock);
  found = strstr (r->log->str, needle) != NULL;
  g_mutex_unlock (&r->log_lock);
  return found;
}

/* A client that opens its stream and then sends nothing: the responder ends the test after its
 * idle timeout (120 s by default, as iperf3's server; 1 s here) with SERVER_TERMINATE, logs why
 * and serves the next client. */
static void
test_idle_timeout (void)
{
  Responder *resp = responder_start_full (1.0, 0, 0);
  int ctrl, stream;
  gint64 t0, waited;

  ctrl = raw_client_params (resp->port, slow_params);
  g_assert_cmpint (read_byte (ctrl), ==, 10);
  stream = raw_connect (resp->port);
  /* The responder's idle clock starts once it has this stream, so this t0 is never later. */
  t0 = qf_clock_now_ns ();
  g_assert_cmpint (send (stream, raw_cookie, 37, 0), ==, 37);
  g_assert_cmpint (read_byte (ctrl), ==, 1);            /* TEST_START */
  g_assert_cmpint (read_byte (ctrl), ==, 2);            /* TEST_RUNNING */
  g_assert_cmpint (read_byte (ctrl), ==, 11);           /* SERVER_TERMINATE, not 30 s later */
  waited = qf_clock_now_ns () - t0;
  g_assert_cmpint (waited, >=, 900 * QF_NSEC_PER_MSEC);
  g_assert_cmpint (waited, <, qf_test_ns (3 * QF_NSEC_PER_SEC));
  close (stream);
  close (ctrl);
  for (int i = 0; i < 500 && !log_has (resp, "no data moved for 1 s"); i++)
    g_usleep (10000);
  g_assert_true (log_has (resp, "no data moved for 1 s"));
  assert_next_client_served (resp);
  responder_stop (resp);
}

/* A client that sent its cookie and then says nothing holds the responder until its 10 s
 * parameter timeout; meanwhile another client is refused as busy at once instead of waiting in
 * the listen queue. */
static void
test_busy_at_once (void)
{
  Responder *resp = responder_start ();
  QfBwConfig c = base_config (resp->port);
  QfBwResult r = { 0 };
  g_autoptr(GError) error = NULL;
  int silent = raw_connect (resp->port);
  gint64 t0;

  g_assert_cmpint (send (silent, raw_cookie, 37, 0), ==, 37);
  g_assert_cmpint (read_byte (silent), ==, 9);          /* PARAM_EXCHANGE: the test is its */
  t0 = qf_clock_now_ns ();

  g_assert_false (run_client (&c, NULL, &r, &error));
  g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_BUSY);
  g_assert_nonnull (strstr (error->message, "Try again"));
  g_assert_cmpint (qf_clock_now_ns () - t0, <, qf_test_ns (2 * QF_NSEC_PER_SEC));
  qf_bw_result_clear (&r);
  close (silent);
  assert_next_client_served (resp);
  responder_stop (resp);
}

/* Connections that never send their cookie hold nothing: they are closed within the admission
 * deadline, and with more of them open than one source may keep waiting, a client that connects
 * after them is served at once. */
static void
test_idle_holds_nothing (void)
{
  enum { N_IDLE = QF_ADMISSION_PER_SOURCE + 4 };
  Responder *resp = responder_start ();
  int idle[N_IDLE];
  gint64 t0 = qf_clock_now_ns ();

  /* left alone: closed by the deadline */
  for (guint i = 0; i < N_IDLE; i++)
    idle[i] = raw_connect (resp->port);
  for (guint i = 0; i < N_IDLE; i++)
    {
      g_assert_true (qf_test_closed_by (idle[i], t0 + QF_ADMISSION_DEADLINE_NS
                                         + qf_test_ns (QF_NSEC_PER_SEC)));
      close (idle[i]);
    }
  /* with a client coming after them: the client is served at once */
  for (guint i = 0; i < N_IDLE; i++)
    idle[i] = raw_connect (resp->port);
  g_usleep (100 * 1000);
  t0 = qf_clock_now_ns ();
  assert_next_client_served (resp);
  g_assert_cmpint (qf_clock_now_ns () - t0, <, qf_test_ns (3 * QF_NSEC_PER_SEC));
  for (guint i = 0; i < N_IDLE; i++)
    {
      g_assert_true (qf_test_closed_by (idle[i], qf_clock_now_ns () + qf_test_ns (QF_NSEC_PER_SEC)));
      close (idle[i]);
    }
  responder_stop (resp);
}

/* 200 connections that each break off inside their cookie write a bounded number of lines, and
 * one line says how many were left out. */
static void
test_log_rate (void)
{
  Responder *resp = responder_start ();
  g_autofree char *log = NULL;
  g_auto(GStrv) lines = NULL;
  guint refused = 0;

  for (guint i = 0; i < 200; i++)
    {
      int fd = raw_connect (resp->port);
      g_assert_cmpint (send (fd, raw_cookie, 5, 0), ==, 5);
      shutdown (fd, SHUT_WR);
      g_assert_true (qf_test_closed_by (fd, qf_clock_now_ns () + qf_test_ns (3 * QF_NSEC_PER_SEC)));
      close (fd);
    }
  log = responder_stop_log (resp);
  lines = g_strsplit (log, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    refused += strstr (lines[i], "refused or ended early") != NULL;
  g_test_message ("%u lines for 200 connections", g_strv_length (lines) - 1);
  g_assert_cmpuint (refused, >=, 1);
  g_assert_cmpuint (refused, <=, QF_LOG_LIMIT_BURST + 5);
  g_assert_nonnull (strstr (log, "left out of the log"));
}

/* serve --max-clients 2 --max-test-seconds 3 on the bandwidth port: more streams or a longer
 * test are refused with iperf3's error codes, which our client turns into what to do. */
static void
test_limits (void)
{
  gboolean ok;
  Responder *resp = responder_start_full (0, 2, 3);
  QfBwConfig c = base_config (resp->port);
  QfBwResult r = { 0 };
  g_autoptr(GError) error = NULL;
  int ctrl;

  c.parallel = 3;
  g_assert_false (run_client (&c, NULL, &r, &error));
  g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL);
  g_assert_nonnull (strstr (error->message, "--max-clients"));
  qf_bw_result_clear (&r);
  g_clear_error (&error);

  c.parallel = 1;
  c.time_s = 2;
  c.omit_s = 2;
  g_assert_false (run_client (&c, NULL, &r, &error));
  g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL);
  g_assert_nonnull (strstr (error->message, "--max-test-seconds"));
  qf_bw_result_clear (&r);
  g_clear_error (&error);

  /* What a stock iperf3 client gets: SERVER_ERROR, i_errno IEDURATION (5). */
  ctrl = raw_client_params (resp->port, slow_params);
  g_assert_cmpint (read_byte (ctrl), ==, -2);
  g_assert_cmpuint (read_be32 (ctrl), ==, 5);
  close (ctrl);

  /* Within the limits (bidir: 2 streams) the test runs. */
  c.direction = QF_BW_BIDIR;
  c.time_s = 0.5;
  c.omit_s = 0;
  ok = run_client (&c, NULL, &r, &error);
  g_assert_no_error (error);   /* first, so a failure prints its message */
  g_assert_true (ok);
  g_assert_cmpfloat (r.up_mbps, >, 0);
  g_assert_cmpfloat (r.down_mbps, >, 0);
  qf_bw_result_clear (&r);
  g_assert_cmpuint (qf_iperf3_server_refused (resp->server), ==, 3);
  responder_stop (resp);
}

static void
test_peer_killed (void)
{
  g_autoptr(GError) error = NULL;
  QfIperf3Server *server = qf_iperf3_server_new ("127.0.0.1", 0, &error);
  guint16 port;
  QfBwConfig c;
  QfBwResult r = { 0 };
  pid_t pid;
  gint64 t0, t_end;

  g_assert_no_error (error);
  port = qf_iperf3_server_get_port (server);
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      qf_iperf3_server_run (server, NULL, NULL);
      _exit (0);
    }
  qf_iperf3_server_free (server);

  c = base_config (port);
  c.time_s = 10;
  c.interval_s = 0.2;
  c.direction = QF_BW_DOWN;
  {
    g_autoptr(QfBwClient) client = qf_bw_client_new (&c, &error);
    GThread *killer;

    g_assert_no_error (error);
    t0 = qf_clock_now_ns ();
    /* Kill the responder process 1 s into the test, as if its PC lost power. */
    killer = g_thread_new ("killer", kill_later, GINT_TO_POINTER (pid));
    g_assert_false (qf_bw_client_run (client, NULL, &r, &error));
    t_end = qf_clock_now_ns ();
    g_thread_join (killer);
  }
  g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_PEER_LOST);
  g_assert_cmpint (t_end - t0, <, qf_test_ns (4 * QF_NSEC_PER_SEC));
  /* The intervals measured before the peer vanished are kept. */
  g_assert_cmpuint (r.intervals->len, >=, 2);
  g_assert_cmpfloat (g_array_index (r.intervals, QfBwInterval, 0).mbps, >, 0);
  g_assert_cmpfloat (r.duration_s, >, 0.5);
  qf_bw_result_clear (&r);
  g_assert_cmpint (waitpid (pid, NULL, 0), ==, pid);
}

static gpointer
stop_later (gpointer data)
{
  g_usleep (700 * 1000);
  kill (GPOINTER_TO_INT (data), SIGSTOP);
  return NULL;
}

static void
test_stall (void)
{
  g_autoptr(GError) error = NULL;
  QfIperf3Server *server = qf_iperf3_server_new ("127.0.0.1", 0, &error);
  QfBwConfig c;
  QfBwResult r = { 0 };
  GThread *stopper;
  pid_t pid;
  gint64 t0;

  g_assert_no_error (error);
  c = base_config (qf_iperf3_server_get_port (server));
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      qf_iperf3_server_run (server, NULL, NULL);
      _exit (0);
    }
  qf_iperf3_server_free (server);

  /* The responder freezes (SIGSTOP): no EOF, no reset, just no data. */
  c.time_s = 10;
  c.direction = QF_BW_DOWN;
  c.stall_timeout_s = 1;
  stopper = g_thread_new ("stopper", stop_later, GINT_TO_POINTER (pid));
  t0 = qf_clock_now_ns ();
  g_assert_false (run_client (&c, NULL, &r, &error));
  g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_PEER_LOST);
  g_assert_cmpint (qf_clock_now_ns () - t0, <, qf_test_ns (3 * QF_NSEC_PER_SEC));
  g_assert_cmpuint (r.intervals->len, >=, 1);
  g_thread_join (stopper);
  qf_bw_result_clear (&r);
  kill (pid, SIGKILL);
  g_assert_cmpint (waitpid (pid, NULL, 0), ==, pid);
}

static void
test_refused (void)
{
  g_autoptr(GError) error = NULL;
  struct sockaddr_in a = { 0 };
  socklen_t len = sizeof a;
  int fd = socket (AF_INET, SOCK_STREAM, 0);
  QfBwConfig c;
  QfBwResult r = { 0 };
  gint64 t0;

  /* A port that was free a moment ago: nothing listens there. */
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  g_assert_cmpint (bind (fd, (struct sockaddr *) &a, sizeof a), ==, 0);
  getsockname (fd, (struct sockaddr *) &a, &len);
  close (fd);

  c = base_config (ntohs (a.sin_port));
  c.connect_timeout_s = 1;
  t0 = qf_clock_now_ns ();
  g_assert_false (run_client (&c, NULL, &r, &error));
  g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE);
  g_assert_nonnull (strstr (error->message, "127.0.0.1"));
  g_assert_cmpint (qf_clock_now_ns () - t0, <, qf_test_ns (1500 * QF_NSEC_PER_MSEC));
  g_assert_cmpuint (r.intervals->len, ==, 0);
  qf_bw_result_clear (&r);
}

static void
test_cancel (void)
{
  Responder *resp = responder_start ();
  QfBwConfig c = base_config (resp->port);
  QfBwResult r = { 0 };
  g_autoptr(GError) error = NULL;
  gint cancel = 0;
  GThread *t;
  gint64 t0;

  c.time_s = 30;
  c.direction = QF_BW_BIDIR;
  t0 = qf_clock_now_ns ();
  t = qf_test_set_flag_later (&cancel, 500);
  g_assert_false (run_client (&c, &cancel, &r, &error));
  g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_CANCELLED);
  g_assert_cmpint (qf_clock_now_ns () - t0, <, qf_test_ns (1500 * QF_NSEC_PER_MSEC));
  g_thread_join (t);
  qf_bw_result_clear (&r);
  /* The responder is free again for the next client. */
  assert_next_client_served (resp);
  responder_stop (resp);
}

static void
test_invalid_config (void)
{
  QfBwConfig c = base_config (5201);
  g_autoptr(GError) error = NULL;

  c.parallel = 0;
  g_assert_null (qf_bw_client_new (&c, &error));
  g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID);
  g_clear_error (&error);
  c = base_config (5201);
  c.protocol = QF_BW_UDP;
  c.len = 8;
  g_assert_null (qf_bw_client_new (&c, &error));
  g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID);
}

/* ---- the JSON reader ---- */

static void
test_json_parse (void)
{
  static const char text[] =
    " {\"a\":1,\"b\":[true,false,null,-2.5e1],\"c\":\"x\\u00e9\\n\\\"\",\"d\":{\"e\":18446744073709551615},"
    "\"f\":9223372036854775807} ";
  g_autoptr(GError) error = NULL;
  g_autoptr(QfMiniJson) j = qf_minijson_parse (text, strlen (text), &error);
  const QfMiniJson *b;

  g_assert_no_error (error);
  g_assert_cmpint (qf_minijson_type (j), ==, QF_MINIJSON_OBJECT);
  g_assert_cmpuint (qf_minijson_length (j), ==, 5);
  g_assert_cmpint (qf_minijson_int (qf_minijson_get (j, "a"), 0), ==, 1);
  b = qf_minijson_get (j, "b");
  g_assert_cmpuint (qf_minijson_length (b), ==, 4);
  g_assert_true (qf_minijson_is_true (qf_minijson_index (b, 0)));
  g_assert_false (qf_minijson_is_true (qf_minijson_index (b, 1)));
  g_assert_cmpint (qf_minijson_type (qf_minijson_index (b, 2)), ==, QF_MINIJSON_NULL);
  g_assert_cmpfloat (qf_minijson_double (qf_minijson_index (b, 3), 0), ==, -25.0);
  g_assert_null (qf_minijson_index (b, 4));
  {
    guint n = 0;
    for (const QfMiniJson *c = qf_minijson_first (j); c != NULL; c = qf_minijson_next (c))
      n++;
    g_assert_cmpuint (n, ==, 5);
    g_assert_cmpstr (qf_minijson_key (qf_minijson_first (j)), ==, "a");
    g_assert_null (qf_minijson_first (qf_minijson_get (j, "a")));
  }
  g_assert_cmpstr (qf_minijson_string (qf_minijson_get (j, "c")), ==, "x\xc3\xa9\n\"");
  /* iperf3 3.12 prints -1 as 2^64 - 1. */
  g_assert_cmpint (qf_minijson_int (qf_minijson_get (qf_minijson_get (j, "d"), "e"), 0), ==, -1);
  g_assert_cmpint (qf_minijson_int (qf_minijson_get (j, "f"), 0), ==, G_MAXINT64);
  g_assert_null (qf_minijson_get (j, "missing"));
  g_assert_cmpint (qf_minijson_int (qf_minijson_get (j, "c"), 7), ==, 7);
}

static void
test_json_reject (void)
{
  static const char *const bad[] = {
    "", "{", "{\"a\"}", "{\"a\":}", "[1,]", "{\"a\":1}x", "01", "1.", "-", "\"abc",
    "\"\\ud800\"", "\"\\u0000\"", "tru", "{\"a\":1,}", "\"\x01\"", "\"\xff\"", "nul",
  };
  GString *deep = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  QfMiniJson *j;

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      j = qf_minijson_parse (bad[i], strlen (bad[i]), &error);
      if (j != NULL)
        g_error ("accepted: %s", bad[i]);
      g_assert_nonnull (error);
      g_clear_error (&error);
    }
  for (int i = 0; i < QF_MINIJSON_MAX_DEPTH + 5; i++)
    g_string_append_c (deep, '[');
  j = qf_minijson_parse (deep->str, deep->len, &error);
  g_assert_null (j);
  g_assert_error (error, QF_MINIJSON_ERROR, QF_MINIJSON_ERROR_LIMIT);
  g_clear_error (&error);
  g_string_free (deep, TRUE);

  {
    g_autofree char *big = g_strnfill (QF_MINIJSON_MAX_TEXT + 1, ' ');
    g_assert_null (qf_minijson_parse (big, strlen (big), &error));
    g_assert_error (error, QF_MINIJSON_ERROR, QF_MINIJSON_ERROR_LIMIT);
    g_clear_error (&error);
  }
  {
    GString *many = g_string_new ("[");
    for (int i = 0; i < QF_MINIJSON_MAX_NODES + 10; i++)
      g_string_append (many, i ? ",0" : "0");
    g_string_append_c (many, ']');
    g_assert_null (qf_minijson_parse (many->str, many->len, &error));
    g_assert_error (error, QF_MINIJSON_ERROR, QF_MINIJSON_ERROR_LIMIT);
    g_string_free (many, TRUE);
  }
}

static void
test_json_write (void)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(QfMiniJson) j = NULL;
  QfMiniJsonWriter w;

  qf_minijson_writer_init (&w, out);
  qf_minijson_writer_begin_object (&w);
  qf_minijson_writer_key (&w, "s");
  qf_minijson_writer_string (&w, "a\"b\\c\n");
  qf_minijson_writer_key (&w, "arr");
  qf_minijson_writer_begin_array (&w);
  qf_minijson_writer_int (&w, -1);
  qf_minijson_writer_uint (&w, G_MAXUINT64);
  qf_minijson_writer_double (&w, 0.5);
  qf_minijson_writer_bool (&w, TRUE);
  qf_minijson_writer_begin_object (&w);
  qf_minijson_writer_end_object (&w);
  qf_minijson_writer_end_array (&w);
  qf_minijson_writer_end_object (&w);
  g_assert_cmpstr (out->str, ==,
                   "{\"s\":\"a\\\"b\\\\c\\u000a\",\"arr\":[-1,18446744073709551615,0.5,true,{}]}");
  j = qf_minijson_parse (out->str, out->len, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (qf_minijson_string (qf_minijson_get (j, "s")), ==, "a\"b\\c\n");
}

/* The live client list (the helper page's "who, which test, for how long"): empty while idle;
 * during a test one "bandwidth" entry from 127.0.0.1 whose byte count grows; empty again after. */
typedef struct
{
  QfBwConfig config;
  gboolean   ok;
} ClientRun;

static gpointer
client_thread (gpointer data)
{
  ClientRun *run = data;
  QfBwResult r = { 0 };

  run->ok = run_client (&run->config, NULL, &r, NULL);
  qf_bw_result_clear (&r);
  return NULL;
}

static void
test_live_clients (void)
{
  Responder *resp = responder_start ();
  ClientRun run = { .config = base_config (resp->port) };
  g_autoptr(GArray) idle = qf_iperf3_server_list_clients (resp->server);
  guint64 first = 0, last = 0;
  GThread *thread;

  g_assert_cmpuint (idle->len, ==, 0);
  run.config.time_s = 1.5;
  thread = g_thread_new ("client", client_thread, &run);
  for (guint i = 0; i < 200 && (first == 0 || last <= first); i++)
    {
      g_autoptr(GArray) now = qf_iperf3_server_list_clients (resp->server);

      g_usleep (20 * 1000);
      if (now->len == 0)
        continue;
      g_assert_cmpuint (now->len, ==, 1);
      {
        const QfServedClient *c = &g_array_index (now, QfServedClient, 0);

        g_assert_cmpstr (c->test, ==, "bandwidth");
        g_assert_cmpstr (c->address, ==, "127.0.0.1");
        g_assert_true (c->count_bytes);
        g_assert_cmpint (c->as_of_ns, >=, c->started_ns);
        if (c->count > 0 && first == 0)
          first = c->count;
        last = c->count;
      }
    }
  g_thread_join (thread);
  g_assert_true (run.ok);
  g_assert_cmpuint (first, >, 0);
  g_assert_cmpuint (last, >, first);
  {
    g_autoptr(GArray) after = NULL;

    for (guint i = 0; i < 100; i++)
      {
        g_clear_pointer (&after, g_array_unref);
        after = qf_iperf3_server_list_clients (resp->server);
        if (after->len == 0)
          break;
        g_usleep (50 * 1000);
      }
    g_assert_cmpuint (after->len, ==, 0);
  }
  responder_stop (resp);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  /* First, while this process has no other threads: it forks a responder. */
  g_test_add_func ("/engine/bandwidth/peer-killed-keeps-intervals", test_peer_killed);
  g_test_add_func ("/engine/bandwidth/stall-timeout", test_stall);
  g_test_add_func ("/engine/bandwidth/json/parse", test_json_parse);
  g_test_add_func ("/engine/bandwidth/json/reject", test_json_reject);
  g_test_add_func ("/engine/bandwidth/json/write", test_json_write);
  g_test_add_func ("/engine/bandwidth/invalid-config", test_invalid_config);
  g_test_add_func ("/engine/bandwidth/tcp-up", test_tcp_up);
  g_test_add_func ("/engine/bandwidth/live-clients", test_live_clients);
  g_test_add_func ("/engine/bandwidth/tcp-down", test_tcp_down);
  g_test_add_func ("/engine/bandwidth/tcp-bidir", test_tcp_bidir);
  g_test_add_func ("/engine/bandwidth/tcp-parallel", test_tcp_parallel);
  g_test_add_func ("/engine/bandwidth/udp-up", test_udp_up);
  g_test_add_func ("/engine/bandwidth/udp-down-parallel", test_udp_down);
  g_test_add_func ("/engine/bandwidth/udp-bidir", test_udp_bidir);
  g_test_add_func ("/engine/bandwidth/omit", test_omit);
  g_test_add_func ("/engine/bandwidth/responder/bad-params-then-next", test_bad_params);
  g_test_add_func ("/engine/bandwidth/responder/wrong-cookie-then-next", test_wrong_cookie);
  g_test_add_func ("/engine/bandwidth/responder/busy", test_busy);
  g_test_add_func ("/engine/bandwidth/responder/busy-at-once", test_busy_at_once);
  g_test_add_func ("/engine/bandwidth/responder/idle-holds-nothing", test_idle_holds_nothing);
  g_test_add_func ("/engine/bandwidth/responder/log-rate", test_log_rate);
  g_test_add_func ("/engine/bandwidth/responder/idle-timeout", test_idle_timeout);
  g_test_add_func ("/engine/bandwidth/responder/limits", test_limits);
  g_test_add_func ("/engine/bandwidth/responder/udp-loss-as-iperf3", test_udp_accounting);
  g_test_add_func ("/engine/bandwidth/refused-within-timeout", test_refused);
  g_test_add_func ("/engine/bandwidth/cancel-within-1s", test_cancel);

  return g_test_run ();
}
