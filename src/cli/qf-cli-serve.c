/* qf-cli-serve.c — `qualify-cli serve`: the responder for the helper machine (src/cli).
 *
 * Starts the helper machine's services, each on its own thread (qf-peer-services.h: latency —
 * sockperf-style ping-pong on TCP+UDP and our cycle protocol — and bandwidth, iperf3-compatible),
 * and waits in a GMainLoop until SIGINT or SIGTERM; then sets the shared stop flag and joins
 * every thread. One log line per test goes to stdout, with the time. --builtin serves on
 * loopback on free ports instead, as the built-in peer of single-PC runs (qf-builtin-peer.h).
 */
#include "config.h"

#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>

#include "qf-auth.h"
#include "qf-builtin-peer.h"
#include "qf-cli.h"
#include "qf-i18n.h"
#include "qf-pairing.h"
#include "qf-peer-services.h"

typedef struct
{
  /* options */
  char         *bind_address;
  char         *iface;
  int           latency_port;
  int           bandwidth_port;
  int           max_clients;
  int           max_test_seconds;
  char         *emulate;
  char         *token_file;     /* access token (qf-auth.h); the token itself is never logged */
  gboolean      pairing_code;   /* draw a pairing code (qf-pairing.h) and require it */
  char         *code;           /* that code, grouped; in memory only */
  gboolean      allow_classic;
  gboolean      spin;           /* busy-poll every ping-pong client (sockperf sr --nonblocked) */
  gboolean      builtin;
  gboolean      json;
  gboolean      no_announce;    /* no discovery answers (mDNS/DNS-SD) */

  GMainLoop    *loop;
  GMutex        failure_lock;
  char         *failure;        /* first fatal error of a service thread */
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
serve_fail (const GError *error,
            gpointer      user_data)
{
  QfServe *serve = user_data;

  g_mutex_lock (&serve->failure_lock);
  if (serve->failure == NULL)
    serve->failure = g_strdup (error->message);
  g_mutex_unlock (&serve->failure_lock);
  g_main_loop_quit (serve->loop);
}

static void
announce_latency_service (QfServe        *serve,
                          QfPeerServices *services)
{
  guint port = qf_peer_services_get_latency_port (services);
  g_autofree char *line = NULL;

  if (serve->emulate != NULL)
    line = g_strdup_printf (_("latency responder (sockperf ping-pong, cycle test) on TCP and UDP "
                              "port %u, emulating %s"), port, serve->emulate);
  else
    line = g_strdup_printf (_("latency responder (sockperf ping-pong, cycle test) on TCP and UDP "
                              "port %u"), port);
  serve_log (line, serve);
  if (serve->spin)
    serve_log (_("busy-polling for every ping-pong client, as sockperf sr --nonblocked (--spin): "
                 "one CPU is busy while a client is served"), serve);
}

static void
announce_bandwidth_service (QfServe        *serve,
                            QfPeerServices *services)
{
  g_autofree char *line = g_strdup_printf (_("bandwidth server (iperf3-compatible) on TCP and UDP port %u"),
                                           qf_peer_services_get_bandwidth_port (services));
  g_autofree char *access = NULL;

  serve_log (line, serve);
  if (serve->code != NULL)
    access = g_strdup (serve->allow_classic
                       ? _("both services: clients prove the pairing code shown above; classic clients (sockperf, iperf3) are served without one (--allow-classic)")
                       : _("both services: clients must prove the pairing code shown above; classic clients (sockperf, iperf3) are refused"));
  else if (serve->token_file == NULL)
    return;
  else if (serve->allow_classic)
    access = g_strdup_printf (_("both services: clients prove the access token of %s; "
                                "classic clients (sockperf, iperf3) are served without one "
                                "(--allow-classic)"), serve->token_file);
  else
    access = g_strdup_printf (_("both services: clients must prove the access token of %s; "
                                "classic clients (sockperf, iperf3) are refused"),
                              serve->token_file);
  serve_log (access, serve);
}

/* A new pairing code into serve->code, printed for the person at the helper machine: the
 * code alone on its line, grouped. Its token, or NULL with error. */
static GBytes *
new_pairing_token (QfServe  *serve,
                   GError  **error)
{
  serve->code = qf_pairing_code_new (error);
  if (serve->code == NULL)
    return NULL;
  g_print ("%s\n%s\n%s\n", _("Pairing code:"), serve->code,
           _("Type this code on the PC under test (its network page, or qualify-cli … --pairing-code CODE) to use this helper machine."));
  fflush (stdout);
  return qf_pairing_code_to_token (serve->code, error);
}

static void
announce_discovery (QfServe        *serve,
                    QfPeerServices *services)
{
  const char *why_not = NULL;
  g_autofree char *line = NULL;

  if (serve->no_announce)
    line = g_strdup (_("discovery: not announced (--no-announce); clients need this machine's "
                       "address"));
  else if (qf_peer_services_is_announcing (services, &why_not))
    line = g_strdup_printf (_("discovery: announced as a _qualify._tcp service (mDNS) on %s; "
                              "find it with “qualify-cli discover”"),
                            serve->iface != NULL ? serve->iface : _("every interface that is up"));
  else
    line = g_strdup_printf (_("discovery: not announced: %s; clients need this machine's "
                              "address"), why_not);
  serve_log (line, serve);
}

/* Binds every service with the options; reports what failed and returns NULL. */
static QfPeerServices *
bind_services (QfServe *serve)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) token = NULL;
  QfPeerServices *services;
  QfPeerServicesConfig config = {
    .bind_address = serve->bind_address,
    .latency_port = (guint16) serve->latency_port,
    .bandwidth_port = (guint16) serve->bandwidth_port,
    .iface = serve->iface,
    .max_clients = (guint) serve->max_clients,
    .max_test_seconds = (guint) serve->max_test_seconds,
    .allow_classic = serve->allow_classic,
    .spin_all = serve->spin,
    .log = serve_log,
    .log_data = serve,
    .fail = serve_fail,
    .fail_data = serve,
    .announce = !serve->no_announce,
  };

  if (!qf_responder_emulation_parse (serve->emulate, &config.emulate, &error))
    {
      qf_cli_error ("serve", error);
      return NULL;
    }
  /* Read (or drawn) once, for both services. */
  if (serve->pairing_code)
    token = new_pairing_token (serve, &error);
  if (serve->pairing_code && token == NULL)
    {
      qf_cli_error ("serve", error);
      return NULL;
    }
  if (serve->token_file != NULL)
    {
      token = qf_auth_token_load (serve->token_file, &error);
      if (token == NULL)
        {
          qf_cli_error ("serve", error);
          return NULL;
        }
    }
  config.token = token;
  services = qf_peer_services_bind (&config, &error);
  if (services == NULL)
    qf_cli_error ("serve", error);
  return services;
}

static gboolean
on_signal (gpointer data)
{
  QfServe *serve = data;

  g_main_loop_quit (serve->loop);
  return G_SOURCE_CONTINUE;
}

/* The helper machine's responder: serves until SIGINT/SIGTERM or a service fails. */
static int
serve_helper (QfServe *serve)
{
  QfPeerServices *services = bind_services (serve);
  guint sigint, sigterm;

  if (services == NULL)
    return QF_CLI_EXIT_ERROR;
  announce_latency_service (serve, services);
  announce_bandwidth_service (serve, services);
  announce_discovery (serve, services);
  qf_peer_services_start (services);
  sigint = g_unix_signal_add (SIGINT, on_signal, serve);
  sigterm = g_unix_signal_add (SIGTERM, on_signal, serve);
  g_main_loop_run (serve->loop);
  g_source_remove (sigint);
  g_source_remove (sigterm);
  qf_peer_services_stop (services);

  if (serve->failure != NULL)
    return qf_cli_errorf ("serve", "%s", serve->failure);
  serve_log (_("stopped"), serve);
  return QF_CLI_EXIT_OK;
}

static gboolean
quit_loop (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_CONTINUE;
}

static void
print_builtin_peer (QfBuiltinPeer *peer,
                    gboolean       json)
{
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
}

/* --builtin: the built-in peer on loopback, its host and ports printed, until SIGINT/SIGTERM. */
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
  print_builtin_peer (peer, json);
  sigint = g_unix_signal_add (SIGINT, quit_loop, loop);
  sigterm = g_unix_signal_add (SIGTERM, quit_loop, loop);
  g_main_loop_run (loop);
  g_source_remove (sigint);
  g_source_remove (sigterm);
  qf_builtin_peer_stop (peer);
  return QF_CLI_EXIT_OK;
}

/* Parses argv into serve; FALSE with *exit_code set when the caller should return at once. */
static gboolean
parse_serve_options (QfServe   *serve,
                     int       *argc,
                     char    ***argv,
                     int       *exit_code)
{
  const GOptionEntry entries[] = {
    { "bind", 0, 0, G_OPTION_ARG_STRING, &serve->bind_address,
      N_("Listen on this address only (default: all)"), N_("ADDR") },
    { "latency-port", 0, 0, G_OPTION_ARG_INT, &serve->latency_port,
      N_("TCP and UDP port of the latency and cycle responder (default 11111, as sockperf)"), N_("P") },
    { "bandwidth-port", 0, 0, G_OPTION_ARG_INT, &serve->bandwidth_port,
      N_("TCP and UDP port of the bandwidth server (default 5201, as iperf3)"), N_("P") },
    { "iface", 0, 0, G_OPTION_ARG_STRING, &serve->iface,
      N_("Serve on this network interface only"), N_("IF") },
    { "max-clients", 0, 0, G_OPTION_ARG_INT, &serve->max_clients,
      N_("Serve at most N clients at once (default 64; a connection counts once it has proven "
         "the access token or, without one, sent its first request); bandwidth tests run one "
         "at a time and may open at most N streams"), N_("N") },
    { "max-test-seconds", 0, 0, G_OPTION_ARG_INT, &serve->max_test_seconds,
      N_("End a test that runs longer than S seconds (default 3600); refuse bandwidth tests "
         "that ask for longer"), N_("S") },
    { "token-file", 0, 0, G_OPTION_ARG_FILENAME, &serve->token_file,
      N_("Serve only clients that prove the access token in FILE (owner-readable only; an "
         "HMAC challenge, the token never crosses the wire)"), N_("FILE") },
    { "pairing-code", 0, 0, G_OPTION_ARG_NONE, &serve->pairing_code,
      N_("Print a new pairing code and serve only clients that prove it (typed on the PC under "
         "test; kept in memory only, a new one each start)"), NULL },
    { "allow-classic", 0, 0, G_OPTION_ARG_NONE, &serve->allow_classic,
      N_("With --token-file or --pairing-code: still serve clients that cannot prove a token (stock sockperf and "
         "iperf3)"), NULL },
    { "emulate", 0, 0, G_OPTION_ARG_STRING, &serve->emulate,
      N_("Answer latency and cycle tests as a poor link would, e.g. delay=5,jitter=2,loss=1 "
         "(ms, ms, %); bloat=MS adds a queue that grows with the bandwidth test's load up to MS "
         "at link=MBPS (default 100)"), N_("SPEC") },
    { "spin", 0, 0, G_OPTION_ARG_NONE, &serve->spin,
      N_("Busy-poll for every ping-pong client, as sockperf sr --nonblocked (for sockperf pp "
         "--nonblocked, which cannot ask as qualify-cli latency --spin does); takes one CPU "
         "while a client is served"), NULL },
    { "no-announce", 0, 0, G_OPTION_ARG_NONE, &serve->no_announce,
      N_("Do not announce this helper on the network (mDNS/DNS-SD, what “qualify-cli discover” "
         "and “run --peer auto” find)"), NULL },
    { "builtin", 0, 0, G_OPTION_ARG_NONE, &serve->builtin,
      N_("Serve on loopback on free ports and print them (single-PC and training runs)"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &serve->json,
      N_("With --builtin: print the host and ports as one JSON object"), NULL },
    { NULL }
  };

  return qf_cli_parse_options ("serve", "", _("Run the responder for the helper machine: latency, "
                                              "cycle and bandwidth tests of a PC under test."),
                               entries, argc, argv, exit_code);
}

/* Returns QF_CLI_EXIT_OK when the options go together, else prints why. */
static int
check_serve_options (const QfServe *serve)
{
  if (serve->latency_port < 1 || serve->latency_port > 65535
      || serve->bandwidth_port < 1 || serve->bandwidth_port > 65535)
    return qf_cli_errorf ("serve", _("a port must be between 1 and 65535"));
  if (serve->max_clients < 1 || serve->max_clients > 4096)
    return qf_cli_errorf ("serve", _("--max-clients must be between 1 and 4096"));
  if (serve->max_test_seconds < 1)
    return qf_cli_errorf ("serve", _("--max-test-seconds must be at least 1"));
  if (serve->pairing_code && serve->token_file != NULL)
    return qf_cli_errorf ("serve", _("choose --pairing-code or --token-file, not both: each is the access token clients must prove"));
  if (serve->pairing_code && serve->builtin)
    return qf_cli_errorf ("serve", _("--builtin serves loopback only and takes no --pairing-code"));
  if (serve->allow_classic && serve->token_file == NULL && !serve->pairing_code)
    return qf_cli_errorf ("serve", _("--allow-classic only makes sense with --token-file or --pairing-code"));
  if (serve->builtin && serve->token_file != NULL)
    return qf_cli_errorf ("serve", _("--builtin serves loopback only and takes no --token-file"));
  if (serve->builtin && serve->spin)
    return qf_cli_errorf ("serve", _("--builtin takes no --spin: our own clients ask for "
                                     "busy-polling when they need it"));
  return QF_CLI_EXIT_OK;
}

static void
serve_clear (QfServe *serve)
{
  g_clear_pointer (&serve->loop, g_main_loop_unref);
  g_mutex_clear (&serve->failure_lock);
  g_free (serve->failure);
  g_free (serve->bind_address);
  g_free (serve->iface);
  g_free (serve->emulate);
  g_free (serve->token_file);
  g_free (serve->code);
}

static int
serve_with_options (QfServe  *serve,
                    int       argc,
                    char    **argv)
{
  int exit_code;

  if (!parse_serve_options (serve, &argc, &argv, &exit_code))
    return exit_code;
  if (argc > 1)
    return qf_cli_errorf ("serve", _("unexpected argument “%s”"), argv[1]);
  exit_code = check_serve_options (serve);
  if (exit_code != QF_CLI_EXIT_OK)
    return exit_code;
  if (serve->builtin)
    return serve_builtin (serve->emulate, serve->json);
  serve->loop = g_main_loop_new (NULL, FALSE);
  return serve_helper (serve);
}

int
qf_cli_serve (int    argc,
              char **argv)
{
  QfServe serve = {
    .latency_port = 11111,
    .bandwidth_port = 5201,
    .max_clients = 64,
    .max_test_seconds = 3600,
  };
  int exit_code;

  g_mutex_init (&serve.failure_lock);
  exit_code = serve_with_options (&serve, argc, argv);
  serve_clear (&serve);
  return exit_code;
}
