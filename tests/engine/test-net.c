/* test-net.c — the network engines on loopback: sockperf statistics, iputils mdev, the
 * responder (ping-pong, malformed and oversized input, client limit, emulated delay and loss),
 * the latency client and the cycle test (tests/engine). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "qf-clock.h"
#include "qf-cycle.h"
#include "qf-net.h"
#include "qf-ping.h"
#include "qf-responder.h"
#include "qf-sockperf.h"
#include "../qf-test-time.h"

/* ---- a responder on 127.0.0.1 on its own thread ------------------------------------------ */

typedef struct
{
  QfResponder *responder;
  GThread     *thread;
  gint         stop;
  guint16      port;
  GMutex       lock;
  GPtrArray   *log;
} Fixture;

static void
collect_log (const char *line,
             gpointer    user_data)
{
  Fixture *f = user_data;

  g_mutex_lock (&f->lock);
  g_ptr_array_add (f->log, g_strdup (line));
  g_mutex_unlock (&f->lock);
}

static gpointer
responder_thread (gpointer data)
{
  Fixture *f = data;
  g_autoptr(GError) error = NULL;

  g_assert_true (qf_responder_run (f->responder, &f->stop, &error));
  g_assert_no_error (error);
  return NULL;
}

static void
fixture_start_full (Fixture                    *f,
                    guint                       max_clients,
                    const QfResponderEmulation *emulate,
                    gboolean                    spin_all)
{
  g_autoptr(GError) error = NULL;
  QfResponderConfig config = {
    .bind_address = "127.0.0.1",
    .max_clients = max_clients,
    .spin_all = spin_all,
    .log = collect_log,
    .log_data = f,
  };

  if (emulate != NULL)
    config.emulate = *emulate;
  g_mutex_init (&f->lock);
  f->log = g_ptr_array_new_with_free_func (g_free);
  f->stop = 0;
  f->responder = qf_responder_new (&config, &error);
  g_assert_no_error (error);
  f->port = qf_responder_get_port (f->responder);
  g_assert_cmpuint (f->port, >, 0);
  f->thread = g_thread_new ("test-responder", responder_thread, f);
}

static void
fixture_start (Fixture                    *f,
               guint                       max_clients,
               const QfResponderEmulation *emulate)
{
  fixture_start_full (f, max_clients, emulate, FALSE);
}

static void
fixture_stop (Fixture *f)
{
  gint64 t0 = qf_clock_now_ns ();

  g_atomic_int_set (&f->stop, 1);
  g_thread_join (f->thread);
  /* The stop flag is honoured within 100 ms (+ scheduling slack). */
  g_assert_cmpint (qf_clock_now_ns () - t0, <, qf_test_ns (2 * QF_NSEC_PER_SEC));
  qf_responder_free (f->responder);
  g_ptr_array_unref (f->log);
  g_mutex_clear (&f->lock);
}

/* A copy of the first log line holding both needles (needle2 may be NULL), or NULL. */
static char *
log_find (Fixture    *f,
          const char *needle,
          const char *needle2)
{
  char *found = NULL;

  g_mutex_lock (&f->lock);
  for (guint i = 0; i < f->log->len && found == NULL; i++)
    {
      const char *line = g_ptr_array_index (f->log, i);
      if (strstr (line, needle) != NULL && (needle2 == NULL || strstr (line, needle2) != NULL))
        found = g_strdup (line);
    }
  g_mutex_unlock (&f->lock);
  return found;
}

/* log_find, waiting up to timeout_ns (scaled) for such a line. */
static char *
wait_log_line (Fixture    *f,
               const char *needle,
               const char *needle2,
               gint64      timeout_ns)
{
  gint64 deadline = qf_clock_now_ns () + qf_test_ns (timeout_ns);
  char *found = log_find (f, needle, needle2);

  while (found == NULL && qf_clock_now_ns () < deadline)
    {
      g_usleep (20000);
      found = log_find (f, needle, needle2);
    }
  return found;
}

/* Whether a line holding needle reaches the log within 2 s (scaled): lines reach the thread
 * that runs the responder a moment after what they tell (qf_responder_run). */
static gboolean
log_contains (Fixture    *f,
              const char *needle)
{
  g_autofree char *line = wait_log_line (f, needle, NULL, 2 * QF_NSEC_PER_SEC);

  return line != NULL;
}

static int
tcp_connect (guint16 port)
{
  struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons (port) };
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

  sin.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  g_assert_cmpint (connect (fd, (struct sockaddr *) &sin, sizeof sin), ==, 0);
  return fd;
}

/* Waits up to 3 s for the peer to close fd; TRUE when it did. */
static gboolean
wait_closed (int fd)
{
  gint64 deadline = qf_clock_now_ns () + qf_test_ns (3 * QF_NSEC_PER_SEC);
  char buf[256];

  while (qf_clock_now_ns () < deadline)
    {
      struct pollfd pfd = { fd, POLLIN, 0 };
      if (poll (&pfd, 1, 100) > 0)
        {
          ssize_t n = recv (fd, buf, sizeof buf, MSG_DONTWAIT);
          if (n == 0 || (n < 0 && errno == ECONNRESET))
            return TRUE;
        }
    }
  return FALSE;
}

static QfSockperfResult
run_latency (guint16             port,
             QfSockperfProtocol  protocol,
             guint               msg_size,
             gdouble             time_s,
             gboolean            spin,
             gboolean           *ok)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfSockperfClient) client = NULL;
  /* Scaled for slow builds (tests/qf-test-time.h): the measured window after the 400 ms warm-up
   * must hold some exchanges even when both threads are starved. */
  QfSockperfConfig config = {
    .host = "127.0.0.1", .port = port, .protocol = protocol, .msg_size = msg_size,
    .time_s = qf_test_s (time_s), .spin = spin,
  };
  QfSockperfResult r;

  /* On a loaded machine a short window can pass with neither thread scheduled: a run that ends
   * well with no sample is tried again with a window four times longer, at most twice. What is
   * checked is what the figures are, not how many fit in a given time. */
  for (guint attempt = 0; attempt < 3; attempt++, config.time_s *= 4)
    {
      g_clear_pointer (&client, qf_sockperf_client_free);
      client = qf_sockperf_client_new (&config, &error);
      g_assert_no_error (error);
      *ok = qf_sockperf_client_run (client, NULL, NULL, NULL, NULL, &r, &error);
      if (*ok)
        g_assert_no_error (error);
      if (!*ok || r.samples > 0)
        break;
    }
  return r;
}

static void
assert_latency_sane (const QfSockperfResult *r)
{
  g_assert_cmpuint (r->samples, >, 0);
  g_assert_cmpuint (r->dropped, ==, 0);
  g_assert_cmpuint (r->samples + r->dropped + r->out_of_order, ==, r->valid_sent);
  g_assert_cmpuint (r->valid_sent, <=, r->sent);
  g_assert_cmpint (r->min_ns, >, 0);
  g_assert_cmpint (r->min_ns, <=, r->percentile_ns[QF_SOCKPERF_P50]);
  g_assert_cmpint (r->percentile_ns[QF_SOCKPERF_P50], <=, r->percentile_ns[QF_SOCKPERF_P99]);
  g_assert_cmpint (r->percentile_ns[QF_SOCKPERF_P99], <=, r->max_ns);
  g_assert_cmpint (r->min_ns, <=, r->avg_ns);
  g_assert_cmpint (r->avg_ns, <=, r->max_ns);
}

/* A 0.3 s latency run against the responder on port that ends well with sane figures. */
static void
assert_served (guint16            port,
               QfSockperfProtocol protocol,
               guint              msg_size,
               gboolean           spin)
{
  QfSockperfResult r;
  gboolean ok;

  r = run_latency (port, protocol, msg_size, 0.3, spin, &ok);
  g_assert_true (ok);
  assert_latency_sane (&r);
}

/* ---- sockperf's statistics ------------------------------------------------------------------ */

static void
test_sockperf_statistics (void)
{
  /* 1000 requests, one every ms from t = 1 s. RTT of request i is 10 µs × (i % 7 + 1); request
   * 600 was never answered and request 700's reply is stamped before 699's (out of order). */
  const guint n = 1000;
  g_autofree gint64 *tx = g_new0 (gint64, n);
  g_autofree gint64 *rx = g_new0 (gint64, n);
  QfSockperfResult r;
  guint64 expected_samples = 0;
  gint64 sum = 0;

  for (guint i = 0; i < n; i++)
    {
      tx[i] = QF_NSEC_PER_SEC + (gint64) i * QF_NSEC_PER_MSEC;
      rx[i] = tx[i] + 10000 * (i % 7 + 1);
    }
  rx[599] = 0;
  rx[699] = rx[698] - 1;

  /* Window: tx ≥ tx[0] + 400 ms (index 400) and tx ≤ tx[999] − 50 ms (index 949). */
  for (guint i = 400; i <= 949; i++)
    if (i != 599 && i != 699)
      {
        expected_samples++;
        sum += rx[i] - tx[i];
      }

  qf_sockperf_statistics (tx, rx, n, FALSE, &r);
  g_assert_cmpuint (r.sent, ==, n);
  g_assert_cmpuint (r.samples, ==, expected_samples);
  g_assert_cmpuint (r.dropped, ==, 1);
  g_assert_cmpuint (r.out_of_order, ==, 1);
  g_assert_cmpuint (r.valid_sent, ==, 550);
  /* sockperf: integer avgRtt = sum / n, then / 2. */
  g_assert_cmpint (r.avg_ns, ==, (sum / (gint64) expected_samples) / 2);
  g_assert_cmpint (r.min_ns, ==, 5000);
  g_assert_cmpint (r.max_ns, ==, 35000);
  /* Index rule: sample[(int)(0.5 + p × N) − 1] of the sorted half-RTTs. */
  {
    g_autofree gint64 *sorted = g_new (gint64, expected_samples);
    guint k = 0;
    for (guint i = 400; i <= 949; i++)
      if (i != 599 && i != 699)
        sorted[k++] = (rx[i] - tx[i]) / 2;
    for (guint a = 0; a < k; a++)
      for (guint b = a + 1; b < k; b++)
        if (sorted[b] < sorted[a])
          {
            gint64 t = sorted[a];
            sorted[a] = sorted[b];
            sorted[b] = t;
          }
    for (guint p = 0; p < QF_SOCKPERF_N_PERCENTILES; p++)
      {
        int index = (int) (0.5 + qf_sockperf_percentiles[p] * k) - 1;
        g_assert_true (r.percentile_valid[p]);
        g_assert_cmpint (r.percentile_ns[p], ==, sorted[index]);
      }
  }
  /* Sample standard deviation (n − 1), rounded to the ns. */
  g_assert_cmpint (r.stddev_ns, >, 0);

  qf_sockperf_statistics (tx, rx, n, TRUE, &r);
  g_assert_cmpint (r.avg_ns, ==, sum / (gint64) expected_samples);
  g_assert_cmpint (r.max_ns, ==, 70000);

  /* A run shorter than warm-up + cool-down has no valid window. */
  qf_sockperf_statistics (tx, rx, 300, FALSE, &r);
  g_assert_cmpuint (r.samples, ==, 0);
}

static void
test_iputils_mdev (void)
{
  /* RTTs 100, 200, 300 µs: mean 200, population variance 6666.67 → llsqrt(6666) = 81. */
  g_assert_cmpint (qf_ping_iputils_mdev (600, 140000, 3), ==, 81);
  /* All equal: 0. */
  g_assert_cmpint (qf_ping_iputils_mdev (500, 50000, 5), ==, 0);
  g_assert_cmpint (qf_ping_iputils_mdev (0, 0, 0), ==, 0);
}

static void
test_emulation_parse (void)
{
  g_autoptr(GError) error = NULL;
  QfResponderEmulation e;

  g_assert_true (qf_responder_emulation_parse ("delay=5,jitter=2.5,loss=1", &e, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (e.delay_ms, ==, 5);
  g_assert_cmpfloat (e.jitter_ms, ==, 2.5);
  g_assert_cmpfloat (e.loss_pct, ==, 1);
  g_assert_true (qf_responder_emulation_parse ("loss=100", &e, &error));
  g_assert_cmpfloat (e.delay_ms, ==, 0);
  g_assert_false (qf_responder_emulation_parse ("loss=101", &e, &error));
  g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (qf_responder_emulation_parse ("delay", &e, &error));
  g_clear_error (&error);
  g_assert_false (qf_responder_emulation_parse ("speed=3", &e, &error));
  g_clear_error (&error);
  g_assert_false (qf_responder_emulation_parse ("delay=-1", &e, &error));
  g_clear_error (&error);
}

/* ---- responder + latency client -------------------------------------------------------------- */

static void
test_latency_loopback (void)
{
  Fixture f;

  fixture_start (&f, 0, NULL);
  assert_served (f.port, QF_SOCKPERF_TCP, 14, FALSE);
  assert_served (f.port, QF_SOCKPERF_UDP, 64, FALSE);
  assert_served (f.port, QF_SOCKPERF_TCP, 1000, TRUE);
  fixture_stop (&f);
}

/* spin_all (serve --spin): a client that does not ask, such as sockperf pp --nonblocked, is
 * busy-polled too, on TCP and UDP, and answered like any other; the log says which mode served
 * each test. Without it, the same blocking client is not busy-polled. */
static void
test_responder_spin_all (void)
{
  for (int spin_all = 0; spin_all < 2; spin_all++)
    {
      g_autofree char *tcp = NULL, *udp = NULL;
      Fixture f;

      fixture_start_full (&f, 0, NULL, spin_all);
      assert_served (f.port, QF_SOCKPERF_TCP, 14, FALSE);
      assert_served (f.port, QF_SOCKPERF_UDP, 14, FALSE);
      /* TCP is logged when the client closes, UDP after 2 s of silence. */
      tcp = wait_log_line (&f, "TCP ping-pong", "messages", 3 * QF_NSEC_PER_SEC);
      udp = wait_log_line (&f, "UDP ping-pong", "messages", 5 * QF_NSEC_PER_SEC);
      g_assert_nonnull (tcp);
      g_assert_nonnull (udp);
      g_assert_cmpint (strstr (tcp, ", busy-polled") != NULL, ==, spin_all);
      g_assert_cmpint (strstr (udp, ", busy-polled") != NULL, ==, spin_all);
      fixture_stop (&f);
    }
}

typedef struct
{
  guint16          port;
  QfSockperfResult result;
  gboolean         ok;
} SpinClient;

static gpointer
spin_client_thread (gpointer data)
{
  SpinClient *c = data;

  c->result = run_latency (c->port, QF_SOCKPERF_TCP, 14, 0.3, TRUE, &c->ok);
  return NULL;
}

/* Busy-polled clients come and go: two at once, twice over, in the only two slots. The
 * responder keeps a list of the connections it spins for; a slot that closed must leave it (a
 * stale entry would overflow it here, or leave the next pair unanswered). */
static void
test_responder_spin_clients (void)
{
  Fixture f;

  fixture_start (&f, 2, NULL);
  for (int pass = 0; pass < 2; pass++)
    {
      SpinClient c[2] = { { .port = f.port }, { .port = f.port } };
      GThread *t[2];

      for (int i = 0; i < 2; i++)
        t[i] = g_thread_new ("spin-client", spin_client_thread, &c[i]);
      for (int i = 0; i < 2; i++)
        {
          /* Served to the end (an unanswered request fails the run). Three busy-polling
           * threads on a loaded 2-CPU machine may complete no exchange inside the measured
           * window, so the figures themselves are not asserted here. */
          g_thread_join (t[i]);
          g_assert_true (c[i].ok);
          g_assert_cmpuint (c[i].result.sent, >, 0);
          g_assert_cmpuint (c[i].result.dropped, ==, 0);
        }
    }
  fixture_stop (&f);
}

static void
test_latency_arrays_grow (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfSockperfClient) client = NULL;
  Fixture f;
  QfSockperfResult r;

  /* Arrays for 16 messages: they double between messages and every reply is still counted. */
  fixture_start (&f, 0, NULL);
  {
    QfSockperfConfig config = {
      .host = "127.0.0.1", .port = f.port, .protocol = QF_SOCKPERF_TCP, .msg_size = 14,
      .time_s = qf_test_s (0.2), .initial_capacity = 16,
    };
    client = qf_sockperf_client_new (&config, &error);
    g_assert_no_error (error);
    g_assert_true (qf_sockperf_client_run (client, NULL, NULL, NULL, NULL, &r, &error));
  }
  g_assert_cmpuint (r.sent, >, 16);
  assert_latency_sane (&r);
  fixture_stop (&f);
}

#define SLOW_READER_MESSAGES 200
#define SLOW_READER_SIZE     30000

static gpointer
slow_reader_sender (gpointer data)
{
  int fd = GPOINTER_TO_INT (data);
  g_autofree guint8 *msg = g_malloc0 (SLOW_READER_SIZE);

  for (guint64 seq = 1; seq <= SLOW_READER_MESSAGES; seq++)
    {
      QfSockperfHeader h = { seq, QF_SOCKPERF_FLAG_CLIENT | QF_SOCKPERF_FLAG_PONG_REQUEST,
                             SLOW_READER_SIZE };
      gsize done = 0;

      qf_sockperf_header_write (msg, &h);
      memset (msg + QF_SOCKPERF_HEADER_SIZE, (int) (seq & 0xff), SLOW_READER_SIZE - QF_SOCKPERF_HEADER_SIZE);
      while (done < SLOW_READER_SIZE)
        {
          ssize_t n = send (fd, msg + done, SLOW_READER_SIZE - done, MSG_NOSIGNAL);
          if (n <= 0)
            return GINT_TO_POINTER (FALSE);
          done += n;
        }
    }
  return GINT_TO_POINTER (TRUE);
}

/* A client that sends 6 MB of requests before it reads a single reply: the responder's sends
 * come up short, the rest of a reply waits in its queue, input pauses until the client reads,
 * and every reply still arrives whole, in order, with the payload it was sent. Served through
 * epoll, then busy-polled (spin_all), where the spin turn flushes the queue itself. */
static void
test_responder_slow_reader (void)
{
  for (int spin_all = 0; spin_all < 2; spin_all++)
    {
      Fixture f;
      g_autofree guint8 *reply = g_malloc (SLOW_READER_SIZE);
      g_autofree char *line = NULL;
      gint64 deadline;
      GThread *sender;
      int fd;

      fixture_start_full (&f, 0, NULL, spin_all);
      fd = tcp_connect (f.port);
      sender = g_thread_new ("slow-reader-sender", slow_reader_sender, GINT_TO_POINTER (fd));
      g_usleep (300 * 1000);   /* the buffers both ways fill up meanwhile */
      deadline = qf_clock_now_ns () + qf_test_ns (20 * QF_NSEC_PER_SEC);
      for (guint64 seq = 1; seq <= SLOW_READER_MESSAGES; seq++)
        {
          QfSockperfHeader h;
          gsize have = 0;

          while (have < SLOW_READER_SIZE)
            {
              struct pollfd pfd = { fd, POLLIN, 0 };
              ssize_t n;

              g_assert_cmpint (qf_clock_now_ns (), <, deadline);
              if (poll (&pfd, 1, 100) <= 0)
                continue;
              n = recv (fd, reply + have, SLOW_READER_SIZE - have, 0);
              g_assert_cmpint (n, >, 0);
              have += n;
            }
          qf_sockperf_header_read (reply, &h);
          g_assert_cmpuint (h.seq, ==, seq);
          g_assert_cmpuint (h.length, ==, SLOW_READER_SIZE);
          g_assert_false (h.flags & QF_SOCKPERF_FLAG_CLIENT);
          g_assert_cmpuint (reply[QF_SOCKPERF_HEADER_SIZE], ==, seq & 0xff);
          g_assert_cmpuint (reply[SLOW_READER_SIZE - 1], ==, seq & 0xff);
        }
      g_assert_true (GPOINTER_TO_INT (g_thread_join (sender)));
      close (fd);
      /* The connection ends when the client goes, busy-polled or not, and its log line says
       * which it was. */
      line = wait_log_line (&f, "TCP ping-pong", "messages", 3 * QF_NSEC_PER_SEC);
      g_assert_nonnull (line);
      g_assert_cmpint (strstr (line, ", busy-polled") != NULL, ==, spin_all);
      fixture_stop (&f);
    }
}

static void
test_responder_malformed (void)
{
  Fixture f;
  QfSockperfResult r;
  gboolean ok;
  guint8 msg[64] = { 0 };
  QfSockperfHeader h = { 1, QF_SOCKPERF_FLAG_CLIENT | QF_SOCKPERF_FLAG_PONG_REQUEST, 0 };
  int fd;

  fixture_start (&f, 0, NULL);

  /* Oversized: a header announcing 100 MB is refused without reading (or allocating) it. */
  fd = tcp_connect (f.port);
  h.length = 100 * 1024 * 1024;
  qf_sockperf_header_write (msg, &h);
  g_assert_cmpint (send (fd, msg, 14, 0), ==, 14);
  g_assert_true (wait_closed (fd));
  close (fd);

  /* Shorter than a header: refused. */
  fd = tcp_connect (f.port);
  h.length = 3;
  qf_sockperf_header_write (msg, &h);
  g_assert_cmpint (send (fd, msg, 14, 0), ==, 14);
  g_assert_true (wait_closed (fd));
  close (fd);

  /* Truncated: half a message, then the client vanishes. */
  fd = tcp_connect (f.port);
  h.length = 64;
  qf_sockperf_header_write (msg, &h);
  g_assert_cmpint (send (fd, msg, 20, 0), ==, 20);
  close (fd);

  /* UDP garbage: too short, length field lying, oversized datagram. */
  {
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons (f.port) };
    g_autofree guint8 *big = g_malloc0 (65000);
    int ufd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

    sin.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    sendto (ufd, "xyz", 3, 0, (struct sockaddr *) &sin, sizeof sin);
    h.length = 5000;
    qf_sockperf_header_write (msg, &h);
    sendto (ufd, msg, 64, 0, (struct sockaddr *) &sin, sizeof sin);
    h.length = 65000;
    qf_sockperf_header_write (big, &h);
    sendto (ufd, big, 65000, 0, (struct sockaddr *) &sin, sizeof sin);
    close (ufd);
  }

  /* The next client is served normally. */
  r = run_latency (f.port, QF_SOCKPERF_TCP, 14, 0.2, FALSE, &ok);
  g_assert_true (ok);
  assert_latency_sane (&r);
  r = run_latency (f.port, QF_SOCKPERF_UDP, 14, 0.2, FALSE, &ok);
  g_assert_true (ok);
  assert_latency_sane (&r);
  g_assert_true (log_contains (&f, "announces"));
  fixture_stop (&f);
}

/* Sends one ping-pong request on fd: how a connection becomes a client that holds a slot. */
static void
tcp_ping (int fd)
{
  QfSockperfHeader h = { 1, QF_SOCKPERF_FLAG_CLIENT | QF_SOCKPERF_FLAG_PONG_REQUEST, 14 };
  guint8 msg[14];

  qf_sockperf_header_write (msg, &h);
  g_assert_cmpint (send (fd, msg, sizeof msg, 0), ==, sizeof msg);
}

static void
test_responder_max_clients (void)
{
  Fixture f;
  guint8 reply[14];
  int a, b, c;

  fixture_start (&f, 2, NULL);
  a = tcp_connect (f.port);
  b = tcp_connect (f.port);
  c = tcp_connect (f.port);
  tcp_ping (a);
  tcp_ping (b);
  g_assert_cmpint (recv (a, reply, sizeof reply, MSG_WAITALL), ==, sizeof reply);
  g_assert_cmpint (recv (b, reply, sizeof reply, MSG_WAITALL), ==, sizeof reply);
  /* The third client's first request finds both slots taken: refused, then closed. */
  tcp_ping (c);
  g_assert_true (wait_closed (c));
  close (c);
  close (a);
  close (b);
  g_assert_true (log_contains (&f, "max-clients"));
  fixture_stop (&f);
}

/* A client that asks once and then says nothing is served in the responder's fast path (a
 * blocking recv() on its socket): a second client and the stop flag must still be noticed
 * within the fast path's 10 ms wake period, not after the silent client's next message. */
static void
test_responder_silent_sole_client (void)
{
  Fixture f;
  guint8 msg[14] = { 0 };
  QfSockperfHeader h = { 7, QF_SOCKPERF_FLAG_CLIENT | QF_SOCKPERF_FLAG_PONG_REQUEST, 14 };
  struct pollfd pfd = { 0 };
  gint64 t0;
  int silent, fd;

  fixture_start (&f, 0, NULL);
  silent = tcp_connect (f.port);
  /* one request and its reply (a connection holds a slot once it asked for something) */
  tcp_ping (silent);
  g_assert_cmpint (recv (silent, msg, sizeof msg, MSG_WAITALL), ==, sizeof msg);
  g_usleep (55 * G_USEC_PER_SEC / 1000);   /* the responder is now waiting on `silent` alone */

  fd = tcp_connect (f.port);
  qf_sockperf_header_write (msg, &h);
  t0 = qf_clock_now_ns ();
  g_assert_cmpint (send (fd, msg, sizeof msg, 0), ==, sizeof msg);
  pfd.fd = fd;
  pfd.events = POLLIN;
  g_assert_cmpint (poll (&pfd, 1, (int) (qf_test_ns (QF_NSEC_PER_SEC) / QF_NSEC_PER_MSEC)), ==, 1);
  g_assert_cmpint (recv (fd, msg, sizeof msg, MSG_WAITALL), ==, sizeof msg);
  qf_sockperf_header_read (msg, &h);
  g_assert_cmpuint (h.seq, ==, 7);
  g_test_message ("second client answered after %.1f ms", (qf_clock_now_ns () - t0) / 1e6);
  close (fd);

  /* and the stop flag is honoured with the silent client still connected (fixture_stop) */
  fixture_stop (&f);
  close (silent);
}

/* The latency client waits for a reply in a blocking recv() with no receive timeout; its wake
 * timer must still let it see the stop flag when the peer never answers (TCP gives up on a
 * reply only after 5 s). */
static void
test_latency_stop_silent_peer (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfSockperfClient) client = NULL;
  struct sockaddr_in sin = { .sin_family = AF_INET };
  socklen_t len = sizeof sin;
  int listener = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  QfSockperfConfig config = { .host = "127.0.0.1", .protocol = QF_SOCKPERF_TCP, .msg_size = 14,
                              .time_s = 30 };
  QfSockperfResult r;
  gint stop = 0;
  GThread *thread;
  gint64 t0;

  /* a peer that completes the handshake (the kernel does) and never reads or answers */
  sin.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  g_assert_cmpint (bind (listener, (struct sockaddr *) &sin, sizeof sin), ==, 0);
  g_assert_cmpint (listen (listener, 4), ==, 0);
  g_assert_cmpint (getsockname (listener, (struct sockaddr *) &sin, &len), ==, 0);
  config.port = ntohs (sin.sin_port);

  client = qf_sockperf_client_new (&config, &error);
  g_assert_no_error (error);
  thread = qf_test_set_flag_later (&stop, 200);
  t0 = qf_clock_now_ns ();
  g_assert_false (qf_sockperf_client_run (client, NULL, &stop, NULL, NULL, &r, &error));
  g_thread_join (thread);
  g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_CANCELLED);
  g_assert_cmpint (qf_clock_now_ns () - t0, <, qf_test_ns (QF_NSEC_PER_SEC));
  close (listener);
}

static void
test_responder_emulated_delay (void)
{
  QfResponderEmulation e = { .delay_ms = 2 };
  Fixture f;
  QfSockperfResult r;
  gboolean ok;

  fixture_start (&f, 0, &e);
  r = run_latency (f.port, QF_SOCKPERF_UDP, 14, 0.2, FALSE, &ok);
  g_assert_true (ok);
  /* Half of a round trip held 2 ms: at least 1 ms. */
  g_assert_cmpuint (r.samples, >, 0);
  g_assert_cmpint (r.min_ns, >=, QF_NSEC_PER_MSEC);
  r = run_latency (f.port, QF_SOCKPERF_TCP, 14, 0.2, FALSE, &ok);
  g_assert_true (ok);
  g_assert_cmpint (r.min_ns, >=, QF_NSEC_PER_MSEC);
  fixture_stop (&f);
}

/* ---- cycle test ------------------------------------------------------------------------------ */

static gboolean
run_cycle (guint16        port,
           guint          rate_hz,
           gdouble        time_s,
           QfCycleResult *r,
           GError       **error)
{
  g_autoptr(QfCycleTest) test = NULL;
  QfCycleConfig config = {
    .host = "127.0.0.1", .port = port, .rate_hz = rate_hz, .time_s = time_s,
    .grace_ns = 100 * QF_NSEC_PER_MSEC,
  };

  test = qf_cycle_test_new (&config, error);
  g_assert_nonnull (test);
  return qf_cycle_test_run (test, NULL, NULL, NULL, NULL, r, error);
}

static void
assert_cycle_invariants (const QfCycleResult *r,
                         guint64              expected_cycles)
{
  g_assert_cmpuint (r->cycles, ==, expected_cycles);
  g_assert_cmpuint (r->misses, ==, r->late + r->lost);
  g_assert_cmpuint (r->replies + r->lost, ==, r->cycles);
  g_assert_cmpuint (r->longest_miss_burst, <=, r->misses);
  if (r->misses > 0)
    g_assert_cmpuint (r->longest_miss_burst, >=, 1);
}

static void
test_cycle_loopback (void)
{
  g_autoptr(GError) error = NULL;
  Fixture f;
  QfCycleResult r;

  fixture_start (&f, 0, NULL);
  g_assert_true (run_cycle (f.port, 500, 0.2, &r, &error));
  g_assert_no_error (error);
  assert_cycle_invariants (&r, 100);
  g_assert_cmpuint (r.replies, >, 0);
  g_assert_cmpint (r.min_rtt_ns, >, 0);
  g_assert_cmpint (r.min_rtt_ns, <=, r.p50_rtt_ns);
  g_assert_cmpint (r.p50_rtt_ns, <=, r.p99_rtt_ns);
  g_assert_cmpint (r.p99_rtt_ns, <=, r.max_rtt_ns);
  fixture_stop (&f);
}

static void
test_cycle_delay_misses (void)
{
  g_autoptr(GError) error = NULL;
  QfResponderEmulation e = { .delay_ms = 4 };
  Fixture f;
  QfCycleResult r;

  /* Every reply held 4 ms at a 1 ms period: every cycle misses, in one unbroken run. */
  fixture_start (&f, 0, &e);
  g_assert_true (run_cycle (f.port, 1000, 0.2, &r, &error));
  assert_cycle_invariants (&r, 200);
  g_assert_cmpuint (r.misses, ==, 200);
  g_assert_cmpuint (r.longest_miss_burst, ==, 200);
  g_assert_cmpuint (r.lost, ==, 0);
  g_assert_cmpint (r.min_rtt_ns, >=, 4 * QF_NSEC_PER_MSEC);
  fixture_stop (&f);
}

static void
test_cycle_loss (void)
{
  g_autoptr(GError) error = NULL;
  QfResponderEmulation e = { .loss_pct = 100 };
  Fixture f;
  QfCycleResult r;

  fixture_start (&f, 0, &e);
  g_assert_false (run_cycle (f.port, 1000, 0.1, &r, &error));
  g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE);
  assert_cycle_invariants (&r, 100);
  g_assert_cmpuint (r.lost, ==, 100);
  fixture_stop (&f);
}

static void
test_latency_refused (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfSockperfClient) client = NULL;
  Fixture f;
  QfSockperfConfig config = { .host = "127.0.0.1", .protocol = QF_SOCKPERF_TCP, .msg_size = 14,
                              .time_s = 0.2 };
  QfSockperfResult r;
  guint16 port;

  /* A port that was just free: nothing listens there any more. */
  fixture_start (&f, 0, NULL);
  port = f.port;
  fixture_stop (&f);
  config.port = port;
  client = qf_sockperf_client_new (&config, &error);
  g_assert_no_error (error);
  g_assert_false (qf_sockperf_client_run (client, NULL, NULL, NULL, NULL, &r, &error));
  g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE);
  g_assert_nonnull (strstr (error->message, "refused"));
}

/* ---- the plain-system-call socket calls (qf-net.h) ----------------------------------------- */

/* They stand in for recv/send/recvfrom/sendto on every per-message path, so they must return and
 * set errno exactly as those do: data, EAGAIN, end of stream, EPIPE without a signal, and the
 * sender's address on a datagram socket. */
static void
test_net_plain_calls (void)
{
  int sv[2], u[2];
  char buf[16];
  struct sockaddr_in a = { 0 }, from = { 0 };
  socklen_t a_len = sizeof a, from_len = sizeof from;

  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM, 0, sv), ==, 0);
  g_assert_cmpint (qf_net_send (sv[0], "ping", 4, MSG_NOSIGNAL), ==, 4);
  g_assert_cmpint (qf_net_recv (sv[1], buf, sizeof buf, 0), ==, 4);
  g_assert_cmpmem (buf, 4, "ping", 4);
  errno = 0;
  g_assert_cmpint (qf_net_recv (sv[1], buf, sizeof buf, MSG_DONTWAIT), ==, -1);
  g_assert_cmpint (errno, ==, EAGAIN);
  close (sv[0]);
  g_assert_cmpint (qf_net_recv (sv[1], buf, sizeof buf, 0), ==, 0);
  errno = 0;
  g_assert_cmpint (qf_net_send (sv[1], "x", 1, MSG_NOSIGNAL), ==, -1);
  g_assert_cmpint (errno, ==, EPIPE);
  close (sv[1]);

  for (guint i = 0; i < 2; i++)
    {
      struct sockaddr_in lo = { .sin_family = AF_INET };
      lo.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
      u[i] = socket (AF_INET, SOCK_DGRAM, 0);
      g_assert_cmpint (u[i], >=, 0);
      g_assert_cmpint (bind (u[i], (struct sockaddr *) &lo, sizeof lo), ==, 0);
    }
  g_assert_cmpint (getsockname (u[1], (struct sockaddr *) &a, &a_len), ==, 0);
  g_assert_cmpint (qf_net_sendto (u[0], "pong", 4, 0, (struct sockaddr *) &a, a_len), ==, 4);
  g_assert_cmpint (qf_net_recvfrom (u[1], buf, sizeof buf, 0, (struct sockaddr *) &from,
                                    &from_len), ==, 4);
  g_assert_cmpmem (buf, 4, "pong", 4);
  g_assert_cmpuint (from_len, ==, sizeof from);
  g_assert_cmpuint (from.sin_addr.s_addr, ==, htonl (INADDR_LOOPBACK));
  a_len = sizeof a;
  g_assert_cmpint (getsockname (u[0], (struct sockaddr *) &a, &a_len), ==, 0);
  g_assert_cmpuint (from.sin_port, ==, a.sin_port);
  close (u[0]);
  close (u[1]);
}

/* ---- a thread with a descriptor table of its own (qf-net.h) ------------------------------- */

typedef struct
{
  int          kept[2];       /* a pipe whose write end the thread keeps */
  int          other[2];      /* another thread's pipe */
  gboolean     kept_works;
  int          not_kept_errno;
  gboolean     delivered;
  GAsyncQueue *go;
} OwnFds;

static void
own_fds_body (gpointer     data,
              GAsyncQueue *outbox)
{
  OwnFds *o = data;

  o->kept_works = write (o->kept[1], "x", 1) == 1;
  o->not_kept_errno = fcntl (o->other[1], F_GETFD) < 0 ? errno : 0;
  g_async_queue_push (outbox, g_strdup ("ready"));
  g_async_queue_pop (o->go);   /* until the calling thread has seen the other pipe end */
}

/* Reads what is left and asserts the end of the pipe comes within 2 s. */
static void
assert_pipe_ends (int fd)
{
  struct pollfd p = { fd, POLLIN, 0 };
  char buf[8];

  g_assert_cmpint (poll (&p, 1, 2000), ==, 1);
  while (read (fd, buf, sizeof buf) > 0)
    ;
  g_assert_cmpint (read (fd, buf, sizeof buf), ==, 0);
}

/* On the calling thread, while the body waits: the kept descriptor worked there, and another
 * thread's pipe closed here really closes. */
static void
own_fds_deliver (gpointer item,
                 gpointer user_data)
{
  OwnFds *o = user_data;
  char c = 0;

  g_assert_cmpstr (item, ==, "ready");
  g_assert_cmpint (read (o->kept[0], &c, 1), ==, 1);
  g_assert_cmpint (c, ==, 'x');
  close (o->other[1]);
  assert_pipe_ends (o->other[0]);
  o->delivered = TRUE;
  g_async_queue_push (o->go, GINT_TO_POINTER (1));
}

/* The measurement loops run so (the kernel's cheaper descriptor lookups). The thread keeps the
 * descriptors it was given and nothing else: a copy of another thread's descriptor would keep
 * that file open after its owner closed it (a pipe's reader, or a responder's client, would see
 * no end while the thread runs), and its copies go when it returns, so what the caller closes
 * next closes at once. What it pushes reaches the calling thread while it runs. TSan builds
 * share the table (qf-net.h) and check only the behaviour. */
static void
test_net_own_fd_table (void)
{
  OwnFds o = { 0 };

  g_assert_cmpint (pipe2 (o.kept, O_CLOEXEC), ==, 0);
  g_assert_cmpint (pipe2 (o.other, O_CLOEXEC), ==, 0);
  o.go = g_async_queue_new ();
  qf_net_run_on_own_fd_table ("test-own-fds", own_fds_body, &o, &o.kept[1], 1,
                              own_fds_deliver, &o);
  g_assert_true (o.delivered);
  g_assert_true (o.kept_works);
#ifndef __SANITIZE_THREAD__
  g_assert_cmpint (o.not_kept_errno, ==, EBADF);
#endif

  /* Still the caller's, and its last reference once closed. */
  g_assert_cmpint (write (o.kept[1], "y", 1), ==, 1);
  close (o.kept[1]);
  assert_pipe_ends (o.kept[0]);
  close (o.kept[0]);
  close (o.other[0]);
  g_async_queue_unref (o.go);
}

/* A served client's host keeps its scope, as qf-responder.h promises ("fe80::1%eth0"): without
 * it a link-local address names no machine. */
static void
test_host_to_string (void)
{
  struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_scope_id = if_nametoindex ("lo") };
  struct sockaddr_in in = { .sin_family = AF_INET };
  g_autofree char *link_local = NULL, *global = NULL, *mapped = NULL, *v4 = NULL;

  g_assert_cmpuint (in6.sin6_scope_id, !=, 0);
  inet_pton (AF_INET6, "fe80::1", &in6.sin6_addr);
  link_local = qf_net_host_to_string ((struct sockaddr *) &in6);
  inet_pton (AF_INET6, "2001:db8::1", &in6.sin6_addr);
  global = qf_net_host_to_string ((struct sockaddr *) &in6);
  inet_pton (AF_INET6, "::ffff:192.0.2.7", &in6.sin6_addr);
  mapped = qf_net_host_to_string ((struct sockaddr *) &in6);
  inet_pton (AF_INET, "192.0.2.8", &in.sin_addr);
  v4 = qf_net_host_to_string ((struct sockaddr *) &in);
  g_assert_cmpstr (link_local, ==, "fe80::1%lo");
  g_assert_cmpstr (global, ==, "2001:db8::1");
  g_assert_cmpstr (mapped, ==, "192.0.2.7");
  g_assert_cmpstr (v4, ==, "192.0.2.8");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/sockperf/statistics", test_sockperf_statistics);
  g_test_add_func ("/engine/ping/iputils-mdev", test_iputils_mdev);
  g_test_add_func ("/engine/net/plain-calls", test_net_plain_calls);
  g_test_add_func ("/engine/net/own-fd-table", test_net_own_fd_table);
  g_test_add_func ("/engine/responder/emulation-parse", test_emulation_parse);
  g_test_add_func ("/engine/responder/latency-loopback", test_latency_loopback);
  g_test_add_func ("/engine/sockperf/arrays-grow", test_latency_arrays_grow);
  g_test_add_func ("/engine/responder/spin-clients", test_responder_spin_clients);
  g_test_add_func ("/engine/responder/spin-all", test_responder_spin_all);
  g_test_add_func ("/engine/responder/malformed", test_responder_malformed);
  g_test_add_func ("/engine/responder/slow-reader", test_responder_slow_reader);
  g_test_add_func ("/engine/responder/max-clients", test_responder_max_clients);
  g_test_add_func ("/engine/responder/silent-sole-client", test_responder_silent_sole_client);
  g_test_add_func ("/engine/sockperf/stop-silent-peer", test_latency_stop_silent_peer);
  g_test_add_func ("/engine/responder/emulated-delay", test_responder_emulated_delay);
  g_test_add_func ("/engine/sockperf/refused", test_latency_refused);
  g_test_add_func ("/engine/cycle/loopback", test_cycle_loopback);
  g_test_add_func ("/engine/cycle/delay-misses", test_cycle_delay_misses);
  g_test_add_func ("/engine/cycle/loss", test_cycle_loss);
  g_test_add_func ("/engine/net/host-to-string", test_host_to_string);
  return g_test_run ();
}
