/* qf-cli-serve.c — `qualify-cli serve`: the responder for the helper machine (src/cli).
 *
 * Runs each service on its own thread (latency: sockperf-style ping-pong on TCP+UDP and our cycle
 * protocol; bandwidth: issue #6) and waits in a GMainLoop until SIGINT or SIGTERM; then sets the
 * shared stop flag and joins every thread. One log line per test goes to stdout, with the time.
 *
 * To add a service: options in qf_cli_serve (), a state block in QfServe, a
 * start_<name>_service () and stop_<name>_service () pair, and one call of each below.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>

#include "qf-auth.h"
#include "qf-builtin-peer.h"
#include "qf-cli.h"
#include "qf-iperf3.h"
#include "qf-responder.h"

typedef struct
{
  /* options shared by the services */
  char         *bind_address;
  char         *iface;
  int           max_clients;
  int           max_test_seconds;

  GMainLoop    *loop;
  gint          stop;           /* set once on SIGINT/SIGTERM; every service thread polls it */
  GMutex        failure_lock;
  char         *failure;        /* first fatal error of a service thread */

  /* Latency service (this issue) */
  int           latency_port;
  char         *emulate;
  char         *token_file;     /* access token (qf-auth.h); the token itself is never logged */
  gboolean      allow_classic;
  gboolean      spin;           /* busy-poll every ping-pong client (sockperf sr --nonblocked) */
  GBytes       *token;          /* read once, for both services */
  QfResponder  *responder;
  GThread      *responder_thread;

  /* Bandwidth service: iperf3 3.12-compatible server (qf-iperf3) */
  int             bandwidth_port;
  QfIperf3Server *bandwidth;
  GThread        *bandwidth_thread;
} QfServe;

static void
serve_log (const char *line,
           gpointer    user_data)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format (now, "%Y-%m-%d %H:%M:%S");

  /* One fprintf per line: stdio's lock keeps lines from two service threads whole. */
  fprintf (stdout, "%s %s\n", stamp, line);
  fflush (stdout);
}

/* Called from a service thread whose loop failed: remember why and end the main loop. */
static void
serve_fail (QfServe      *serve,
            const GError *error)
{
  g_mutex_lock (&serve->failure_lock);
  if (serve->failure == NULL)
    serve->failure = g_strdup (error->message);
  g_mutex_unlock (&serve->failure_lock);
  g_main_loop_quit (serve->loop);
}

/* ---- latency service ---------------------------------------------------------------------- */

static gpointer
responder_thread (gpointer data)
{
  QfServe *serve = data;
  g_autoptr(GError) error = NULL;

  if (!qf_responder_run (serve->responder, &serve->stop, &error))
    serve_fail (serve, error);
  return NULL;
}

static gboolean
start_latency_service (QfServe  *serve,
                       GError  **error)
{
  QfResponderConfig config = {
    .bind_address = serve->bind_address,
    .latency_port = (guint16) serve->latency_port,
    .iface = serve->iface,
    .max_clients = (guint) serve->max_clients,
    .max_test_seconds = (guint) serve->max_test_seconds,
    .log = serve_log,
    .log_data = serve,
  };

  if (!qf_responder_emulation_parse (serve->emulate, &config.emulate, error))
    return FALSE;
  if (serve->token_file != NULL)
    {
      serve->token = qf_auth_token_load (serve->token_file, error);
      if (serve->token == NULL)
        return FALSE;
    }
  config.token = serve->token;
  config.allow_classic = serve->allow_classic;
  config.spin_all = serve->spin;
  serve->responder = qf_responder_new (&config, error);
  if (serve->responder == NULL)
    return FALSE;
  return TRUE;
}

static void
announce_latency_service (QfServe *serve)
{
  g_autofree char *line = NULL;

  if (serve->emulate != NULL)
    line = g_strdup_printf (_("latency responder (sockperf ping-pong, cycle test) on TCP and UDP "
                              "port %u, emulating %s"),
                            qf_responder_get_port (serve->responder), serve->emulate);
  else
    line = g_strdup_printf (_("latency responder (sockperf ping-pong, cycle test) on TCP and UDP "
                              "port %u"),
                            qf_responder_get_port (serve->responder));
  serve_log (line, serve);
  if (serve->spin)
    serve_log (_("busy-polling for every ping-pong client, as sockperf sr --nonblocked (--spin): "
                 "one CPU is busy while a client is served"), serve);
  serve->responder_thread = g_thread_new ("qf-responder", responder_thread, serve);
}

static void
stop_latency_service (QfServe *serve)
{
  g_clear_pointer (&serve->responder_thread, g_thread_join);
  g_clear_pointer (&serve->responder, qf_responder_free);
}

/* ---- bandwidth service --------------------------------------------------------------------- */

static gpointer
bandwidth_thread (gpointer data)
{
  QfServe *serve = data;
  g_autoptr(GError) error = NULL;

  if (!qf_iperf3_server_run (serve->bandwidth, &serve->stop, &error))
    serve_fail (serve, error);
  return NULL;
}

static gboolean
start_bandwidth_service (QfServe  *serve,
                         GError  **error)
{
  serve->bandwidth = qf_iperf3_server_new (serve->bind_address, (guint16) serve->bandwidth_port, error);
  if (serve->bandwidth == NULL)
    return FALSE;
  if (serve->iface != NULL && !qf_iperf3_server_bind_iface (serve->bandwidth, serve->iface, error))
    return FALSE;
  qf_iperf3_server_set_log (serve->bandwidth, serve_log, serve);
  qf_iperf3_server_set_token (serve->bandwidth, serve->token, serve->allow_classic);
  qf_iperf3_server_set_limits (serve->bandwidth, (guint) serve->max_clients,
                               (guint) serve->max_test_seconds);
  return TRUE;
}

static void
announce_bandwidth_service (QfServe *serve)
{
  g_autofree char *line = g_strdup_printf (_("bandwidth server (iperf3-compatible) on TCP and UDP port %u"),
                                           qf_iperf3_server_get_port (serve->bandwidth));
  serve_log (line, serve);
  if (serve->token_file != NULL)
    {
      g_autofree char *access = NULL;
      if (serve->allow_classic)
        access = g_strdup_printf (_("both services: clients prove the access token of %s; "
                                    "classic clients (sockperf, iperf3) are served without one "
                                    "(--allow-classic)"), serve->token_file);
      else
        access = g_strdup_printf (_("both services: clients must prove the access token of %s; "
                                    "classic clients (sockperf, iperf3) are refused"),
                                  serve->token_file);
      serve_log (access, serve);
    }
  serve->bandwidth_thread = g_thread_new ("qf-bandwidth-server", bandwidth_thread, serve);
}

static void
stop_bandwidth_service (QfServe *serve)
{
  g_clear_pointer (&serve->bandwidth_thread, g_thread_join);
  g_clear_pointer (&serve->bandwidth, qf_iperf3_server_free);
}

/* ---- main ---------------------------------------------------------------------------------- */

static gboolean
on_signal (gpointer data)
{
  QfServe *serve = data;

  g_main_loop_quit (serve->loop);
  return G_SOURCE_CONTINUE;
}

static gboolean
quit_loop (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_CONTINUE;
}

static int
serve_builtin (const char *emulate,
               gboolean    json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  QfResponderEmulation emulation;
  QfBuiltinPeer *peer;
  guint sigint, sigterm;

  if (!qf_responder_emulation_parse (emulate, &emulation, &error))
    return qf_cli_error ("serve", error);
  peer = qf_builtin_peer_start (&emulation, &error);
  if (peer == NULL)
    return qf_cli_error ("serve", error);
  if (json)
    {
      g_autoptr(JsonObject) obj = json_object_new ();
      json_object_set_string_member (obj, "host", qf_builtin_peer_get_host (peer));
      json_object_set_int_member (obj, "latency_port", qf_builtin_peer_get_latency_port (peer));
      json_object_set_int_member (obj, "bandwidth_port", qf_builtin_peer_get_bandwidth_port (peer));
      qf_cli_print_json (obj);
    }
  else
    {
      g_print ("host %s\n", qf_builtin_peer_get_host (peer));
      g_print ("latency_port %u\n", qf_builtin_peer_get_latency_port (peer));
      g_print ("bandwidth_port %u\n", qf_builtin_peer_get_bandwidth_port (peer));
    }
  fflush (stdout);
  sigint = g_unix_signal_add (SIGINT, quit_loop, loop);
  sigterm = g_unix_signal_add (SIGTERM, quit_loop, loop);
  g_main_loop_run (loop);
  g_source_remove (sigint);
  g_source_remove (sigterm);
  qf_builtin_peer_stop (peer);
  return QF_CLI_EXIT_OK;
}

int
qf_cli_serve (int    argc,
              char **argv)
{
  g_autoptr(GError) error = NULL;
  QfServe serve = {
    .latency_port = 11111,
    .bandwidth_port = 5201,
    .max_clients = 64,
    .max_test_seconds = 3600,
  };
  gboolean builtin = FALSE, json = FALSE;
  guint sigint, sigterm;
  int exit_code;
  const GOptionEntry entries[] = {
    { "bind", 0, 0, G_OPTION_ARG_STRING, &serve.bind_address,
      N_("Listen on this address only (default: all)"), N_("ADDR") },
    { "latency-port", 0, 0, G_OPTION_ARG_INT, &serve.latency_port,
      N_("TCP and UDP port of the latency and cycle responder (default 11111, as sockperf)"), N_("P") },
    { "bandwidth-port", 0, 0, G_OPTION_ARG_INT, &serve.bandwidth_port,
      N_("TCP and UDP port of the bandwidth server (default 5201, as iperf3)"), N_("P") },
    { "iface", 0, 0, G_OPTION_ARG_STRING, &serve.iface,
      N_("Serve on this network interface only"), N_("IF") },
    { "max-clients", 0, 0, G_OPTION_ARG_INT, &serve.max_clients,
      N_("Serve at most N clients at once (default 64); bandwidth tests run one at a time "
         "and may open at most N streams"), N_("N") },
    { "max-test-seconds", 0, 0, G_OPTION_ARG_INT, &serve.max_test_seconds,
      N_("End a test that runs longer than S seconds (default 3600); refuse bandwidth tests "
         "that ask for longer"), N_("S") },
    { "token-file", 0, 0, G_OPTION_ARG_FILENAME, &serve.token_file,
      N_("Serve only clients that prove the access token in FILE (owner-readable only; an "
         "HMAC challenge, the token never crosses the wire)"), N_("FILE") },
    { "allow-classic", 0, 0, G_OPTION_ARG_NONE, &serve.allow_classic,
      N_("With --token-file: still serve clients that cannot prove a token (stock sockperf and "
         "iperf3)"), NULL },
    { "emulate", 0, 0, G_OPTION_ARG_STRING, &serve.emulate,
      N_("Answer latency and cycle tests as a poor link would, e.g. delay=5,jitter=2,loss=1 "
         "(ms, ms, %)"), N_("SPEC") },
    { "spin", 0, 0, G_OPTION_ARG_NONE, &serve.spin,
      N_("Busy-poll for every ping-pong client, as sockperf sr --nonblocked (for sockperf pp "
         "--nonblocked, which cannot ask as qualify-cli latency --spin does); takes one CPU "
         "while a client is served"), NULL },
    { "builtin", 0, 0, G_OPTION_ARG_NONE, &builtin,
      N_("Serve on loopback on free ports and print them (single-PC and training runs)"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      N_("With --builtin: print the host and ports as one JSON object"), NULL },
    { NULL }
  };

  if (!qf_cli_parse_options ("serve", "", _("Run the responder for the helper machine: latency, "
                                            "cycle and bandwidth tests of a PC under test."),
                             entries, &argc, &argv, &exit_code))
    return exit_code;
  if (argc > 1)
    return qf_cli_errorf ("serve", _("unexpected argument “%s”"), argv[1]);
  if (serve.latency_port < 1 || serve.latency_port > 65535
      || serve.bandwidth_port < 1 || serve.bandwidth_port > 65535)
    return qf_cli_errorf ("serve", _("a port must be between 1 and 65535"));
  if (serve.max_clients < 1 || serve.max_clients > 4096)
    return qf_cli_errorf ("serve", _("--max-clients must be between 1 and 4096"));
  if (serve.max_test_seconds < 1)
    return qf_cli_errorf ("serve", _("--max-test-seconds must be at least 1"));

  if (serve.allow_classic && serve.token_file == NULL)
    return qf_cli_errorf ("serve", _("--allow-classic only makes sense with --token-file"));
  if (builtin && serve.token_file != NULL)
    return qf_cli_errorf ("serve", _("--builtin serves loopback only and takes no --token-file"));
  if (builtin && serve.spin)
    return qf_cli_errorf ("serve", _("--builtin takes no --spin: our own clients ask for "
                                     "busy-polling when they need it"));
  if (builtin)
    return serve_builtin (serve.emulate, json);

  g_mutex_init (&serve.failure_lock);
  serve.loop = g_main_loop_new (NULL, FALSE);
  exit_code = QF_CLI_EXIT_OK;

  if (!start_latency_service (&serve, &error))
    exit_code = qf_cli_error ("serve", error);
  if (exit_code == QF_CLI_EXIT_OK && !start_bandwidth_service (&serve, &error))
    exit_code = qf_cli_error ("serve", error);

  if (exit_code == QF_CLI_EXIT_OK)
    {
      announce_latency_service (&serve);
      announce_bandwidth_service (&serve);
      sigint = g_unix_signal_add (SIGINT, on_signal, &serve);
      sigterm = g_unix_signal_add (SIGTERM, on_signal, &serve);
      g_main_loop_run (serve.loop);
      g_source_remove (sigint);
      g_source_remove (sigterm);
    }

  g_atomic_int_set (&serve.stop, 1);
  stop_latency_service (&serve);
  stop_bandwidth_service (&serve);

  if (serve.failure != NULL)
    exit_code = qf_cli_errorf ("serve", "%s", serve.failure);
  else if (exit_code == QF_CLI_EXIT_OK)
    serve_log (_("stopped"), &serve);

  g_main_loop_unref (serve.loop);
  g_mutex_clear (&serve.failure_lock);
  g_free (serve.failure);
  g_free (serve.bind_address);
  g_free (serve.iface);
  g_free (serve.emulate);
  g_free (serve.token_file);
  g_clear_pointer (&serve.token, g_bytes_unref);
  return exit_code;
}
