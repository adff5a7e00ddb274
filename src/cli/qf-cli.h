/* qf-cli.h — shared conventions of qualify-cli's subcommands (src/cli).
 *
 * Each subcommand lives in qf-cli-<name>.c as `int qf_cli_<name> (int argc, char **argv)`,
 * argv[0] being the subcommand's name. Conventions every subcommand keeps:
 *   --json prints exactly one JSON object on stdout and nothing else there; progress and
 *   human text go to stderr.
 *   Exit 0 = success / pass, 1 = measured and failed the profile (run, verify),
 *   2 = error, with one line on stderr that says what happened and what to do.
 * The CLI uses src/core and src/engine; it never links GTK (it runs on headless helpers). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "qf-discovery.h"
#include "qf-audit.h"
#include "qf-step.h"

G_BEGIN_DECLS

enum
{
  QF_CLI_EXIT_OK = 0,
  QF_CLI_EXIT_FAIL = 1,
  QF_CLI_EXIT_ERROR = 2,
};

/* Parses argv against entries with GOption, handling -h/--help itself (printed to stdout)
 * instead of letting GOption call exit(). Returns FALSE with *exit_code set when the caller
 * should return at once: 0 after help, 2 after a parse error (already printed). */
gboolean qf_cli_parse_options (const char          *command,
                               const char          *parameter_string,
                               const char          *summary,
                               const GOptionEntry  *entries,
                               int                 *argc,
                               char              ***argv,
                               int                 *exit_code);

/* Prints "qualify-cli COMMAND: message" on stderr and returns QF_CLI_EXIT_ERROR. */
int      qf_cli_error         (const char          *command,
                               const GError        *error);
int      qf_cli_errorf        (const char          *command,
                               const char          *format,
                               ...) G_GNUC_PRINTF (2, 3);

/* A client's --token-file: reads the access token (qf-auth.h) once so a bad file stops the
 * subcommand before anything is printed or sent. QF_CLI_EXIT_OK when token_file is NULL or
 * readable; else prints why and returns QF_CLI_EXIT_ERROR. */
int      qf_cli_check_token_file (const char       *command,
                                  const char       *token_file);

/* A client's --pairing-code (qf-pairing.h) beside its --token-file: refuses both together and
 * a code that is not one (saying why), checks the token file; *token: the code's token, kept
 * in memory only (NULL without a code). A code of "-" is replaced by the one read from standard
 * input (asked for without echo on a terminal). QF_CLI_EXIT_OK or, after printing why,
 * QF_CLI_EXIT_ERROR. */
int      qf_cli_client_token  (const char          *command,
                               const char          *token_file,
                               char               **pairing_code,
                               GBytes             **token);

/* A traced step's result (qf-step-trace.h, qf-cli-trace.c): the line on stderr that says why
 * nothing was traced, when it was asked for and not recorded; and each spike's sentence and
 * breakdown on stdout. */
void     qf_cli_trace_warning        (const char          *command,
                                      JsonObject          *result);
void     qf_cli_print_latency_causes (JsonObject          *result);
/* For `run`: the worst spike's sentence (or why nothing was traced) on stderr, after indent. */
void     qf_cli_print_worst_cause    (const char          *indent,
                                      JsonObject          *result);
/* Prints obj as one JSON document followed by a newline on stdout. */
void     qf_cli_print_json    (JsonObject          *obj);

/* The subcommands. */
int qf_cli_sysinfo   (int argc, char **argv);
int qf_cli_interfaces (int argc, char **argv);

/* "ok", "warning", "FAIL", "unknown", translated (qf-cli-common.c). */
const char *qf_cli_status_mark (QfAuditStatus status);

/* The network readiness audit of iface (qf-cli-interfaces.c): NetworkManager's facts from the
 * running daemon, or from key files below a fixture root; the path MTU probed when peer is set.
 * GPtrArray of QfNetAuditCheck, NULL with error when there is no such interface. */
GPtrArray  *qf_cli_network_audit       (const char  *root,
                                        const char  *iface,
                                        const char  *peer,
                                        GError     **error);
void        qf_cli_print_network_audit (GPtrArray   *checks,
                                        const char  *iface);
int qf_cli_rt        (int argc, char **argv);
int qf_cli_stress    (int argc, char **argv);
int qf_cli_monitor   (int argc, char **argv);

/* Prints a stress or monitor result's summary, top processes and rules (qf-cli-stress.c). */
void     qf_cli_print_load_summary (JsonObject          *result);
int qf_cli_run       (int argc, char **argv);
int qf_cli_profiles  (int argc, char **argv);
int qf_cli_report    (int argc, char **argv);
int qf_cli_verify    (int argc, char **argv);
int qf_cli_cert      (int argc, char **argv);
int qf_cli_trust     (int argc, char **argv);

/* Writes SESSION_DIR/report.pdf and report.html (qf-cli-report.c), signed with the stored
 * certificate unless no_sign; quiet when json. TRUE at once when session_dir is NULL. */
gboolean qf_cli_report_session_dir (const char  *session_dir,
                                    const char  *language,
                                    gboolean     no_sign,
                                    gboolean     json,
                                    GError     **error);
int qf_cli_ping      (int argc, char **argv);
int qf_cli_latency   (int argc, char **argv);
int qf_cli_cycle     (int argc, char **argv);
int qf_cli_bandwidth (int argc, char **argv);
int qf_cli_serve     (int argc, char **argv);
int qf_cli_discover  (int argc, char **argv);

/* run --peer auto: the one helper machine that answers discovery on iface, or, when iface is
 * NULL, on the only wired interface that is up (below root, for tests). NULL with an error that
 * says what was heard when none or several answer. */
QfHelperInfo *qf_cli_discover_auto_peer (const char  *iface,
                                         const char  *root,
                                         GError     **error);

G_END_DECLS
