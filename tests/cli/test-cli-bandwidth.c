/* test-cli-bandwidth.c — `qualify-cli bandwidth` against a stock `iperf3 -s`, a stock
 * `iperf3 -c` against `qualify-cli serve`, and the failure paths (tests/cli). Loopback only,
 * on ports picked free at run time; every process started here is killed by its PID. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli-util.h"

/* A TCP port that nothing listens on right now, whose UDP twin is free too. It is drawn at
 * random below the kernel's ephemeral range (ip_local_port_range): a port the kernel hands out
 * could become another test's outgoing connection before our server binds it (seen as a rare
 * "connection refused" when the suites run in parallel under ASan). */
static guint16
free_port (void)
{
  g_autofree char *range = NULL;
  guint low = 32768;

  if (g_file_get_contents ("/proc/sys/net/ipv4/ip_local_port_range", &range, NULL, NULL))
    low = (guint) g_ascii_strtoull (range, NULL, 10);
  for (int attempt = 0; attempt < 200; attempt++)
    {
      struct sockaddr_in a = { 0 };
      socklen_t len = sizeof a;
      int t = socket (AF_INET, SOCK_STREAM, 0), u = socket (AF_INET, SOCK_DGRAM, 0);
      gboolean ok;

      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
      /* below the ephemeral range when it leaves room, else whatever the kernel picks */
      if (low > 11024)
        a.sin_port = htons ((guint16) g_random_int_range ((gint32) low - 10000, (gint32) low));
      ok = bind (t, (struct sockaddr *) &a, sizeof a) == 0;
      getsockname (t, (struct sockaddr *) &a, &len);
      ok = ok && bind (u, (struct sockaddr *) &a, sizeof a) == 0;
      close (t);
      close (u);
      if (ok)
        return ntohs (a.sin_port);
    }
  g_assert_not_reached ();
}

/* True once something listens on TCP port (read from /proc, so nothing connects to it). */
static gboolean
listening (guint16 port)
{
  static const char *const files[] = { "/proc/net/tcp", "/proc/net/tcp6" };
  g_autofree char *suffix = g_strdup_printf (":%04X", port);

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *text = NULL;
      g_auto(GStrv) lines = NULL;

      if (!g_file_get_contents (files[f], &text, NULL, NULL))
        continue;
      lines = g_strsplit (text, "\n", -1);
      for (guint i = 1; lines[i] != NULL; i++)
        {
          /* "sl local_address rem_address st …"; 0A = LISTEN */
          g_auto(GStrv) cols = g_strsplit_set (g_strstrip (lines[i]), " ", -1);
          const char *col[4] = { NULL };
          guint n = 0;

          for (guint c = 0; cols[c] != NULL && n < 4; c++)
            if (cols[c][0] != '\0')
              col[n++] = cols[c];
          if (n == 4 && g_str_equal (col[3], "0A") && g_str_has_suffix (col[1], suffix))
            return TRUE;
        }
    }
  return FALSE;
}

/* In the server child: it dies with this test, so a failed assertion leaves no server behind. */
static void
die_with_parent (gpointer user_data)
{
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}

static GPid
spawn_server (const char *const *argv,
              guint16            port)
{
  g_autoptr(GError) error = NULL;
  GPid pid;

  g_spawn_async (NULL, (char **) argv, NULL,
                 G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL
                 | G_SPAWN_STDERR_TO_DEV_NULL,
                 die_with_parent, NULL, &pid, &error);
  g_assert_no_error (error);
  for (int i = 0; i < 500 && !listening (port); i++)
    g_usleep (10000);
  g_assert_true (listening (port));
  return pid;
}

static void
kill_server (GPid pid,
             int  sig)
{
  int status;

  kill (pid, sig);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_spawn_close_pid (pid);
}

static gboolean
have_iperf3 (void)
{
  g_autofree char *path = g_find_program_in_path ("iperf3");

  if (path == NULL)
    g_test_skip ("iperf3 is not installed (./run-tests installs it)");
  return path != NULL;
}

static gdouble
num (JsonObject *o,
     const char *key)
{
  g_assert_true (json_object_has_member (o, key));
  return json_object_get_double_member (o, key);
}

static JsonObject *
run_ours (guint16     port,
          const char *extra1,
          const char *extra2)
{
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *port_text = g_strdup_printf ("%u", port);
  JsonObject *r;
  int status;

  status = qf_test_run_cli (&out, &err, "bandwidth", "-c", "127.0.0.1", "-p", port_text, "-t", "1",
                            "-i", "0.5", "--json", extra1, extra2, NULL);
  if (status != 0)
    g_test_message ("stderr: %s", err);
  g_assert_cmpint (status, ==, 0);
  r = qf_test_parse_json (out);
  /* Every key the issue promises is there, whatever the mode. */
  {
    static const char *const keys[] = { "test", "protocol", "direction", "streams", "duration_s",
                                        "sent_mbps", "received_mbps", "retransmits", "jitter_ms",
                                        "lost_pct", "intervals", "rx_kBps", "tx_kBps", "peer_kind" };
    for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
      g_assert_true (json_object_has_member (r, keys[i]));
  }
  g_assert_cmpstr (json_object_get_string_member (r, "test"), ==, "bandwidth");
  g_assert_true (json_object_has_member (r, "intervals"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (r, "intervals")), >=, 1);
  {
    JsonObject *iv = json_array_get_object_element (json_object_get_array_member (r, "intervals"), 0);
    g_assert_cmpfloat (num (iv, "t_s"), >, 0);
    g_assert_cmpfloat (num (iv, "mbps"), >=, 0);
  }
  g_assert_cmpfloat (num (r, "sent_mbps"), >, 0);
  g_assert_cmpfloat (num (r, "received_mbps"), >, 0);
  g_assert_cmpfloat (num (r, "duration_s"), >, 0.8);
  g_assert_cmpfloat (num (r, "rx_kBps"), >, 0);
  g_assert_cmpfloat (num (r, "tx_kBps"), >, 0);
  return r;
}

static void
test_against_iperf3_server (void)
{
  guint16 port;
  g_autofree char *port_text = NULL;
  GPid pid;

  if (!have_iperf3 ())
    return;
  port = free_port ();
  port_text = g_strdup_printf ("%u", port);
  {
    const char *argv[] = { "iperf3", "-s", "-p", port_text, NULL };
    pid = spawn_server (argv, port);
  }

  {
    g_autoptr(JsonObject) r = run_ours (port, NULL, NULL);
    g_assert_cmpstr (json_object_get_string_member (r, "protocol"), ==, "tcp");
    g_assert_cmpstr (json_object_get_string_member (r, "direction"), ==, "up");
    g_assert_cmpstr (json_object_get_string_member (r, "peer_kind"), ==, "iperf3");
    g_assert_cmpint (json_object_get_int_member (r, "streams"), ==, 1);
    g_assert_cmpint (json_object_get_int_member (r, "retransmits"), >=, 0);
    g_assert_true (json_object_get_null_member (r, "jitter_ms"));
  }
  {
    g_autoptr(JsonObject) r = run_ours (port, "-R", NULL);
    g_assert_cmpstr (json_object_get_string_member (r, "direction"), ==, "down");
  }
  {
    g_autoptr(JsonObject) r = run_ours (port, "-P", "3");
    g_assert_cmpint (json_object_get_int_member (r, "streams"), ==, 3);
  }
  {
    g_autoptr(JsonObject) r = run_ours (port, "-d", NULL);
    g_assert_cmpstr (json_object_get_string_member (r, "direction"), ==, "bidir");
    g_assert_cmpfloat (num (r, "up_mbps"), >, 0);
    g_assert_cmpfloat (num (r, "down_mbps"), >, 0);
  }
  {
    g_autoptr(JsonObject) r = run_ours (port, "-R", "-u");
    g_assert_cmpstr (json_object_get_string_member (r, "protocol"), ==, "udp");
    g_assert_cmpfloat (num (r, "jitter_ms"), >=, 0);
    g_assert_cmpfloat (num (r, "lost_pct"), >=, 0);
  }
  {
    /* Paced UDP: our client and iperf3's own agree on what the same server received. */
    g_autoptr(JsonObject) ours = run_ours (port, "-u", "--bitrate=20M");
    g_autofree char *out = NULL;
    g_autoptr(JsonObject) theirs = NULL;
    JsonObject *sum;
    int status;
    const char *argv[] = { "iperf3", "-c", "127.0.0.1", "-p", port_text, "-t", "1", "-u",
                           "-b", "20M", "-J", NULL };

    g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                  NULL, NULL, &out, NULL, &status, NULL);
    theirs = qf_test_parse_json (out);
    sum = json_object_get_object_member (json_object_get_object_member (theirs, "end"), "sum");
    g_assert_cmpfloat_with_epsilon (num (ours, "received_mbps"),
                                    json_object_get_double_member (sum, "bits_per_second") / 1e6, 2.0);
    g_assert_cmpfloat_with_epsilon (num (ours, "received_mbps"), 20.0, 2.0);
  }
  kill_server (pid, SIGTERM);
}

static JsonObject *
run_iperf3_client (guint16     port,
                   const char *extra1,
                   const char *extra2)
{
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *port_text = g_strdup_printf ("%u", port);
  g_autoptr(GError) error = NULL;
  const char *argv[] = { "iperf3", "-c", "127.0.0.1", "-p", port_text, "-t", "1", "-J",
                         extra1, extra2, NULL };
  JsonObject *r, *end;
  int status;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err,
                &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_test_message ("iperf3 said: %s %s", out, err);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  r = qf_test_parse_json (out);
  g_assert_false (json_object_has_member (r, "error"));
  end = json_object_get_object_member (r, "end");
  g_assert_nonnull (end);
  return r;
}

static gdouble
iperf3_received_bytes (JsonObject *r)
{
  JsonObject *end = json_object_get_object_member (r, "end");

  if (json_object_has_member (end, "sum_received"))
    return json_object_get_double_member (json_object_get_object_member (end, "sum_received"), "bytes");
  return json_object_get_double_member (json_object_get_object_member (end, "sum"), "bytes");
}

static void
test_from_iperf3_client (void)
{
  guint16 port, latency_port;
  g_autofree char *port_text = NULL, *latency_text = NULL;
  GPid pid;

  if (!have_iperf3 ())
    return;
  port = free_port ();
  latency_port = free_port ();
  port_text = g_strdup_printf ("%u", port);
  latency_text = g_strdup_printf ("%u", latency_port);
  {
    const char *argv[] = { g_getenv ("QUALIFY_CLI"), "serve", "--no-announce", "--bandwidth-port", port_text,
                           "--latency-port", latency_text, NULL };
    pid = spawn_server (argv, port);
  }
  {
    g_autoptr(JsonObject) r = run_iperf3_client (port, NULL, NULL);
    g_assert_cmpfloat (iperf3_received_bytes (r), >, 0);
  }
  {
    g_autoptr(JsonObject) r = run_iperf3_client (port, "-R", NULL);
    g_assert_cmpfloat (iperf3_received_bytes (r), >, 0);
  }
  {
    g_autoptr(JsonObject) r = run_iperf3_client (port, "-P", "3");
    JsonArray *streams = json_object_get_array_member (json_object_get_object_member (r, "end"), "streams");
    g_assert_cmpuint (json_array_get_length (streams), ==, 3);
    g_assert_cmpfloat (iperf3_received_bytes (r), >, 0);
  }
  {
    g_autoptr(JsonObject) r = run_iperf3_client (port, "-u", "-b20M");
    JsonObject *sum = json_object_get_object_member (json_object_get_object_member (r, "end"), "sum");
    /* Our responder's receiver figures, as iperf3 prints them. */
    g_assert_cmpint (json_object_get_int_member (sum, "packets"), >, 0);
    g_assert_cmpfloat (json_object_get_double_member (sum, "jitter_ms"), >=, 0);
    g_assert_cmpfloat_with_epsilon (json_object_get_double_member (sum, "bits_per_second") / 1e6, 20, 2);
  }
  {
    g_autoptr(JsonObject) r = run_iperf3_client (port, "-u", "-R");
    g_assert_cmpfloat (iperf3_received_bytes (r), >, 0);
  }
  {
    g_autoptr(JsonObject) r = run_iperf3_client (port, "--bidir", NULL);
    g_assert_cmpfloat (iperf3_received_bytes (r), >, 0);
  }
  /* Our own client finds our responder too. */
  {
    g_autoptr(JsonObject) r = run_ours (port, NULL, NULL);
    g_assert_cmpstr (json_object_get_string_member (r, "peer_kind"), ==, "qualify");
  }
  kill_server (pid, SIGTERM);
}

static void
test_peer_killed (void)
{
  guint16 port = free_port (), latency_port = free_port ();
  g_autofree char *port_text = g_strdup_printf ("%u", port);
  g_autofree char *latency_text = g_strdup_printf ("%u", latency_port);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) r = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  const char *server_argv[] = { g_getenv ("QUALIFY_CLI"), "serve", "--no-announce", "--bandwidth-port", port_text,
                                "--latency-port", latency_text, NULL };
  const char *client_argv[] = { g_getenv ("QUALIFY_CLI"), "bandwidth", "127.0.0.1", "-p", port_text,
                                "-t", "10", "-i", "0.25", "--json", NULL };
  GPid server, client;
  int out_fd, status;
  char buf[4096];
  ssize_t n;
  gint64 t0;

  server = spawn_server (server_argv, port);
  g_spawn_async_with_pipes (NULL, (char **) client_argv, NULL,
                            G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                            &client, NULL, &out_fd, NULL, &error);
  g_assert_no_error (error);
  g_usleep (1500 * 1000);
  /* The helper machine loses power in the middle of the test. */
  kill_server (server, SIGKILL);
  t0 = g_get_monotonic_time ();
  while ((n = read (out_fd, buf, sizeof buf)) > 0)
    g_string_append_len (out, buf, n);
  close (out_fd);
  g_assert_cmpint (waitpid (client, &status, 0), ==, client);
  g_spawn_close_pid (client);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 5 * G_USEC_PER_SEC);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 2);
  r = qf_test_parse_json (out->str);
  g_assert_true (json_object_has_member (r, "error"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (r, "intervals")), >=, 2);
}

static void
test_refused (void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *port_text = g_strdup_printf ("%u", free_port ());
  gint64 t0 = g_get_monotonic_time ();
  int status;

  status = qf_test_run_cli (&out, &err, "bandwidth", "127.0.0.1", "-p", port_text, "-t", "1",
                            "--connect-timeout", "1", NULL);
  g_assert_cmpint (status, ==, 2);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 2 * G_USEC_PER_SEC);
  /* One line that names the peer and what to do. */
  g_assert_nonnull (strstr (err, "127.0.0.1"));
  g_assert_nonnull (strstr (err, "serve"));
  g_assert_cmpint (strchr (err, '\n') - err, ==, (gssize) strlen (err) - 1);
}

static void
test_bad_options (void)
{
  g_assert_cmpint (qf_test_run_cli (NULL, NULL, "bandwidth", "127.0.0.1", "--tcp", "--udp", NULL), ==, 2);
  g_assert_cmpint (qf_test_run_cli (NULL, NULL, "bandwidth", "127.0.0.1", "-R", "-d", NULL), ==, 2);
  g_assert_cmpint (qf_test_run_cli (NULL, NULL, "bandwidth", "127.0.0.1", "-b", "fast", NULL), ==, 2);
  g_assert_cmpint (qf_test_run_cli (NULL, NULL, "bandwidth", NULL), ==, 2);
  g_assert_cmpint (qf_test_run_cli (NULL, NULL, "bandwidth", "127.0.0.1", "-P", "0", NULL), ==, 2);
  g_assert_cmpint (qf_test_run_cli (NULL, NULL, "bandwidth", "--help", NULL), ==, 0);
}

/* `serve --max-clients 1 --max-test-seconds 2` applies to the bandwidth port: a test asking for
 * more streams or more time is refused with a message that says what to do, and a client that
 * comes while another holds the port is turned away at once as busy — iperf3's client with its
 * own "server is busy" (ACCESS_DENIED). */
static void
test_serve_limits (void)
{
  guint16 port = free_port (), latency_port = free_port ();
  g_autofree char *port_text = g_strdup_printf ("%u", port);
  g_autofree char *latency_text = g_strdup_printf ("%u", latency_port);
  const char *argv[] = { g_getenv ("QUALIFY_CLI"), "serve", "--no-announce", "--bandwidth-port", port_text,
                         "--latency-port", latency_text, "--max-clients", "1",
                         "--max-test-seconds", "2", NULL };
  GPid pid = spawn_server (argv, port);

  {
    g_autofree char *out = NULL, *err = NULL;
    g_assert_cmpint (qf_test_run_cli (&out, &err, "bandwidth", "127.0.0.1", "-p", port_text,
                                      "-t", "3", NULL), ==, 2);
    g_assert_nonnull (strstr (err, "--max-test-seconds"));
  }
  {
    g_autofree char *out = NULL, *err = NULL;
    g_assert_cmpint (qf_test_run_cli (&out, &err, "bandwidth", "127.0.0.1", "-p", port_text,
                                      "-t", "1", "-P", "2", NULL), ==, 2);
    g_assert_nonnull (strstr (err, "--max-clients"));
  }
  {
    /* A client that sent its cookie and then says nothing holds the port (for up to 10 s,
     * waiting for its parameters; one that sends nothing at all holds nothing). */
    static const char cookie[37] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    struct sockaddr_in a = { 0 };
    int silent = socket (AF_INET, SOCK_STREAM, 0);
    g_autofree char *out = NULL, *err = NULL;
    g_autofree char *iperf3 = g_find_program_in_path ("iperf3");
    signed char state = 0;
    gint64 t0;

    a.sin_family = AF_INET;
    a.sin_port = htons (port);
    a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    g_assert_cmpint (connect (silent, (struct sockaddr *) &a, sizeof a), ==, 0);
    g_assert_cmpint (send (silent, cookie, sizeof cookie, 0), ==, sizeof cookie);
    g_assert_cmpint (recv (silent, &state, 1, MSG_WAITALL), ==, 1);
    g_assert_cmpint (state, ==, 9);   /* PARAM_EXCHANGE: the port is this client's */
    t0 = g_get_monotonic_time ();
    g_assert_cmpint (qf_test_run_cli (&out, &err, "bandwidth", "127.0.0.1", "-p", port_text,
                                      "-t", "1", NULL), ==, 2);
    g_assert_nonnull (strstr (err, "busy"));
    g_assert_nonnull (strstr (err, "Try again"));
    g_assert_cmpint (g_get_monotonic_time () - t0, <, 3 * G_USEC_PER_SEC);
    if (iperf3 != NULL)
      {
        const char *iperf_argv[] = { "iperf3", "-c", "127.0.0.1", "-p", port_text, "-t", "1", NULL };
        g_autofree char *iout = NULL, *ierr = NULL;
        int status;

        g_spawn_sync (NULL, (char **) iperf_argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &iout,
                      &ierr, &status, NULL);
        g_assert_false (g_spawn_check_wait_status (status, NULL));
        g_assert_nonnull (strstr (ierr, "busy"));
        g_clear_pointer (&iout, g_free);
        g_clear_pointer (&ierr, g_free);
        /* iperf3's own words for the stream and time limits. */
        close (silent);
        silent = -1;
        {
          const char *p_argv[] = { "iperf3", "-c", "127.0.0.1", "-p", port_text, "-t", "1", "-P", "2", NULL };
          g_spawn_sync (NULL, (char **) p_argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &iout,
                        &ierr, &status, NULL);
          g_assert_false (g_spawn_check_wait_status (status, NULL));
          g_assert_nonnull (strstr (ierr, "parallel streams"));
        }
      }
    if (silent >= 0)
      close (silent);
  }
  kill_server (pid, SIGTERM);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cli/bandwidth/bad-options", test_bad_options);
  g_test_add_func ("/cli/bandwidth/refused-exit-2", test_refused);
  g_test_add_func ("/cli/bandwidth/against-iperf3-server", test_against_iperf3_server);
  g_test_add_func ("/cli/bandwidth/from-iperf3-client", test_from_iperf3_client);
  g_test_add_func ("/cli/bandwidth/peer-killed-exit-2-partial", test_peer_killed);
  g_test_add_func ("/cli/bandwidth/serve-limits", test_serve_limits);

  return g_test_run ();
}
