/* qf-report-build.c — the report's blocks, section by section (src/core, report model).
 *
 * Turns the session into the blocks both writers render, in the report's language: title and
 * identity, overall verdict, notes (and whether the PC is a virtual machine), criteria table, one
 * section per test (qf-report-steps.c), advice, readiness audit, network readiness audit,
 * inventory, network, comparison, sign-off and the appendix note.
 * Figures are printed as the engines stored them; nothing is recomputed.
 */
#include "config.h"

#include <math.h>

#include "qf-i18n.h"
#include "qf-report-format.h"
#include "qf-report-json.h"
#include "qf-report-steps.h"
#include "qf-sysinfo.h"

/* The PC's host name, isolated (_qf_report_isolate); "?" when the session does not know it. */
static char *
host_name (QfReport *report)
{
  const char *host = str (obj (report->session, "pc"), "hostname");

  return host != NULL ? _qf_report_isolate (host) : g_strdup ("?");
}

/* A key–value row whose value Qualify did not write. */
static void
kv_user (QfBlock    *b,
         const char *key,
         const char *value)
{
  g_autofree char *isolated = _qf_report_isolate (value);

  _qf_report_kv (b, key, value != NULL && *value != '\0' ? isolated : NULL);
}

static void
add_heading (QfReport   *report,
             int         level,
             const char *text)
{
  _qf_report_add_block (report, QF_BLOCK_HEADING, text)->level = level;
}

/* The title, the page headers and the title block. A training run must never pass for an
 * acceptance: it says so in the title and every header. */
static void
add_title (QfReport *report)
{
  JsonObject *s = report->session;
  gboolean training = obj (s, "training") != NULL;
  g_autofree char *customer = _qf_report_isolate (str (s, "customer"));
  g_autofree char *host = host_name (report);
  QfBlock *b;

  g_free (report->title);
  report->title = g_strdup (training ? TR (N_("Training session — not an acceptance report"))
                                     : TR (N_("Acceptance report")));
  g_free (report->header_left);
  report->header_left = g_strdup_printf ("%s — %s", report->title, host);
  g_free (report->header_right);
  report->header_right = _qf_report_format_time (str (s, "finished_at") ? str (s, "finished_at")
                                                                         : str (s, "created_at"));

  b = _qf_report_add_block (report, QF_BLOCK_TITLE,
                            training ? report->title : TR (N_("Real-time PC acceptance report")));
  b->text2 = g_strdup_printf ("%s · %s", host,
                              g_strcmp0 (str (s, "customer"), "") != 0 && customer != NULL ? customer : "—");
}

/* "host (vendor product)", or the host name alone. */
static char *
pc_under_test (QfReport *report)
{
  JsonObject *pc = obj (report->session, "pc");
  g_autofree char *vendor = _qf_report_isolate (str (pc, "dmi_vendor"));
  g_autofree char *product = _qf_report_isolate (str (pc, "dmi_product"));
  g_autofree char *host = host_name (report);

  if (vendor == NULL && product == NULL)
    return g_steal_pointer (&host);
  return g_strdup_printf ("%s (%s%s%s)", host, vendor ? vendor : "",
                          vendor && product ? " " : "", product ? product : "");
}

/* "id, version N — name (quick run)" */
static char *
profile_text (QfReport *report)
{
  JsonObject *profile = obj (report->session, "profile");
  g_autofree char *id = _qf_report_isolate (str (profile, "id"));
  g_autofree char *name = str (profile, "name") ? _qf_report_isolate (TR (str (profile, "name"))) : NULL;
  gboolean quick = json_object_get_boolean_member_with_default (report->session, "quick", FALSE);
  gdouble version = 0;

  num (profile, "version", &version);
  return g_strdup_printf ("%s, %s %.0f%s%s%s", id ? id : "?", TR (N_("version")), version,
                          name ? " — " : "", name ? name : "",
                          quick ? TR (N_(" (quick run)")) : "");
}

/* Who, where, when, with what: the table under the title. */
static void
add_identity (QfReport *report)
{
  JsonObject *s = report->session;
  const char *serial = str (obj (s, "pc"), "dmi_serial");
  g_autofree char *app = _qf_report_isolate (str (s, "app_version"));
  g_autofree char *pc = pc_under_test (report);
  g_autofree char *version = g_strdup_printf ("%s (%s %s)", app ? app : "?",
                                              TR (N_("report written by")), PACKAGE_VERSION);
  g_autofree char *profile = profile_text (report);
  QfBlock *b = _qf_report_add_table (report, QF_BLOCK_KEY_VALUE);

  kv_user (b, TR (N_("Customer")), str (s, "customer"));
  kv_user (b, TR (N_("Site")), str (s, "site"));
  _qf_report_kv (b, TR (N_("PC under test")), pc);
  if (serial != NULL)
    kv_user (b, TR (N_("Serial number")), serial);
  kv_user (b, TR (N_("Operator")), str (s, "operator"));
  _qf_report_kv (b, TR (N_("Date and time")), report->header_right);
  _qf_report_kv (b, TR (N_("Qualify version")), version);
  _qf_report_kv (b, TR (N_("Profile")), profile);
  kv_user (b, TR (N_("Session")), str (s, "id"));
}

/* The big verdict box: "✓ PASS" over "Overall verdict" or the number of warnings. */
static void
add_overall (QfReport *report)
{
  const char *css = NULL;
  g_autofree char *overall = _qf_report_overall_text (report, &css);
  QfBlock *b = _qf_report_add_block (report, QF_BLOCK_VERDICT, overall);
  gdouble warnings = 0;

  b->css = g_strdup (css);
  b->id = g_strdup ("qf-overall");
  num (report->judged, "warnings", &warnings);
  if (warnings > 0)
    b->text2 = g_strdup_printf ("%s: %.0f", TR (N_("Warnings")), warnings);
  else
    b->text2 = g_strdup (TR (N_("Overall verdict")));
  if (obj (report->session, "training") != NULL)
    {
      g_autofree char *with = g_strdup_printf ("%s — %s", b->text2,
                                               TR (N_("training run, not an acceptance")));
      g_free (b->text2);
      b->text2 = g_steal_pointer (&with);
    }
}

/* The training note in the report's language, with the emulated link's figures. */
static char *
training_note (QfReport   *report,
               JsonObject *training)
{
  gdouble delay_ms = 0, jitter_ms = 0, loss_pct = 0, bloat_ms = 0;
  g_autofree char *delay = NULL, *jitter = NULL, *loss = NULL, *text = NULL, *bloat = NULL;

  num (training, "bloat_ms", &bloat_ms);
  num (training, "delay_ms", &delay_ms);
  num (training, "jitter_ms", &jitter_ms);
  num (training, "loss_pct", &loss_pct);
  delay = g_strdup_printf ("%.3g", delay_ms);
  jitter = g_strdup_printf ("%.3g", jitter_ms);
  loss = g_strdup_printf ("%.3g", loss_pct);
  /* The format comes from our own catalogue, never from the session. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  text = g_strdup_printf (TR (N_("Training run, not an acceptance test: the built-in peer imitated a link that holds each reply %s ms ± %s ms and loses %s %% of UDP replies. Only the socket-latency and control-cycle tests go through it; ping and bandwidth measure this PC's loopback.")),
                          delay, jitter, loss);
  if (bloat_ms <= 0)
    return g_steal_pointer (&text);
  bloat = g_strdup_printf ("%.3g", bloat_ms);
  return g_strdup_printf (TR (N_("%s Its queue grows with the bandwidth test's load and adds up to %s ms to each reply while the link is saturated.")),
                          text, bloat);
#pragma GCC diagnostic pop
}

/* The session's notes; the ones Qualify knows by id are printed in the report's language. */
static void
add_notes (QfReport *report)
{
  JsonArray *notes = arr (report->session, "notes");
  JsonObject *training = obj (report->session, "training");

  for (guint i = 0; notes != NULL && i < json_array_get_length (notes); i++)
    {
      JsonObject *n = json_array_get_object_element (notes, i);
      const char *id = str (n, "id");
      g_autofree char *note = _qf_report_isolate (str (n, "text"));
      const char *text = note;

      if (g_strcmp0 (id, "builtin-peer") == 0)
        text = TR (N_("Network figures were measured on this PC's loopback with the built-in peer, not over a real link to a helper machine."));
      else if (g_strcmp0 (id, "training") == 0 && training != NULL)
        {
          g_free (note);
          text = note = training_note (report, training);
        }
      else if (g_strcmp0 (id, "demo-profile") == 0)
        text = TR (N_("The limits come from a demonstration profile, not from the procedure."));
      if (text != NULL)
        _qf_report_add_block (report, QF_BLOCK_NOTE, text);
    }
}

/* The audit's checks: {"checks": [...]}, or a list of checks itself. */
static JsonArray *
audit_checks (JsonObject *session)
{
  JsonObject *audit = obj (session, "audit");
  JsonNode *list = member (session, "audit");

  if (audit != NULL)
    return arr (audit, "checks");
  return list != NULL && JSON_NODE_HOLDS_ARRAY (list) ? json_node_get_array (list) : NULL;
}

/* On the first page, when the readiness audit found a virtual machine: its figures include the
 * host's scheduling, which the reader must know before reading any of them. */
static void
add_vm_note (QfReport *report)
{
  JsonArray *checks = audit_checks (report->session);

  for (guint i = 0; checks != NULL && i < json_array_get_length (checks); i++)
    {
      JsonObject *c = json_array_get_object_element (checks, i);

      if (c != NULL && g_strcmp0 (str (c, "id"), "virtualization") == 0
          && g_strcmp0 (str (c, "status"), "warn") == 0)
        {
          QfBlock *b = _qf_report_add_block (report, QF_BLOCK_NOTE,
                                             TR (N_("This PC is a virtual machine. Inside a virtual machine every latency figure includes the host’s scheduling, so the results describe the host as much as this system. Qualify the robot controller on the real hardware it will run on.")));
          b->id = g_strdup ("qf-virtual-machine");
          b->css = g_strdup ("warn");
          return;
        }
    }
}

/* Every criterion judged, with its verdict: the table the verifier checks. Its rows are the
 * verdicts judged again on loading (report->judged), the ones each test's section prints. */
static void
add_criteria (QfReport *report)
{
  g_autoptr(GPtrArray) row_css = NULL;
  g_autoptr(GPtrArray) rows = _qf_report_criteria_rows (report, &row_css);
  QfBlock *b;

  add_heading (report, 2, TR (N_("Criteria")));
  b = _qf_report_add_table (report, QF_BLOCK_TABLE);
  b->id = g_strdup ("qf-criteria");
  b->verdict_col = 4;
  _qf_report_table_set_header (b, TR (N_("Test")), TR (N_("Criterion")), TR (N_("Measured")),
                               TR (N_("Limit")), TR (N_("Verdict")), NULL);
  for (guint i = 0; i < rows->len; i++)
    {
      g_ptr_array_add (b->rows, g_ptr_array_ref (g_ptr_array_index (rows, i)));
      g_ptr_array_add (b->row_css, g_strdup (g_ptr_array_index (row_css, i)));
    }
  if (rows->len == 0)
    _qf_report_add_block (report, QF_BLOCK_PARAGRAPH, TR (N_("No criterion was judged.")));
}

/* On a new page, one section per step. */
static void
add_tests (QfReport *report)
{
  JsonArray *steps = arr (report->session, "steps");

  _qf_report_add_block (report, QF_BLOCK_PAGE_BREAK, NULL);
  add_heading (report, 2, TR (N_("Tests")));
  for (guint i = 0; steps != NULL && i < json_array_get_length (steps); i++)
    {
      JsonObject *step = json_array_get_object_element (steps, i);
      if (step != NULL)
        _qf_report_add_step_section (report, step, i + 1);
    }
}

/* The ranked advice: verdict and summary, then the explanation or the fix. */
static void
add_advice (QfReport *report)
{
  JsonArray *advice = arr (report->session, "advice");

  add_heading (report, 2, TR (N_("Advice")));
  if (advice == NULL || json_array_get_length (advice) == 0)
    _qf_report_add_block (report, QF_BLOCK_PARAGRAPH,
                          TR (N_("Every criterion passed: no advice.")));
  for (guint i = 0; advice != NULL && i < json_array_get_length (advice); i++)
    {
      JsonObject *a = json_array_get_object_element (advice, i);
      const char *summary, *text;
      g_autofree char *head = NULL, *summary_i = NULL, *body = NULL;
      QfBlock *b;

      if (a == NULL)
        continue;
      summary = str (a, "summary");
      text = str (a, "text");
      summary_i = _qf_report_isolate (summary ? summary : "");
      head = g_strdup_printf ("%s — %s", _qf_report_verdict_word (report, str (a, "verdict")),
                              summary_i);
      b = _qf_report_add_block (report, QF_BLOCK_NOTE, head);
      b->css = g_strdup (str (a, "verdict"));
      if (text != NULL && g_strcmp0 (text, summary) != 0)
        body = _qf_report_isolate (text);
      else
        body = _qf_report_isolate (str (a, "fix"));
      if (body != NULL)
        _qf_report_add_block (report, QF_BLOCK_PARAGRAPH, body);
    }
}

/* The status word of an audit check as printed, and its row class. */
static const char *
check_status_word (QfReport    *report,
                   const char  *status,
                   const char **css)
{
  gboolean ok = g_strcmp0 (status, "ok") == 0;

  *css = ok ? "pass" : g_strcmp0 (status, "unknown") == 0 || status == NULL ? "not-run" : status;
  return ok ? TR (N_("OK"))
         : g_strcmp0 (status, "warn") == 0 ? TR (N_("WARN"))
         : g_strcmp0 (status, "fail") == 0 ? TR (N_("FAIL"))
         : TR (N_("unknown"));
}

static void
add_audit_row (QfReport   *report,
               QfBlock    *b,
               JsonObject *check)
{
  const char *st = str (check, "status");
  g_autofree char *title = _qf_report_isolate (str (check, "title") ? TR (str (check, "title")) : str (check, "id"));
  g_autofree char *value = _qf_report_isolate (str (check, "value"));
  g_autofree char *advice = _qf_report_isolate (str (check, "advice"));
  gboolean ok = g_strcmp0 (st, "ok") == 0;
  const char *css = NULL;
  const char *word = check_status_word (report, st, &css);

  _qf_report_table_add_row (b, css, title ? title : "?", value ? value : "—",
                            word, ok ? "" : (advice ? advice : ""), NULL);
}

/* The readiness audit as a table: check, what was found, status, advice. */
static void
add_audit (QfReport *report)
{
  JsonArray *checks = audit_checks (report->session);
  QfBlock *b;

  add_heading (report, 2, TR (N_("Readiness audit")));
  if (checks == NULL || json_array_get_length (checks) == 0)
    {
      _qf_report_add_block (report, QF_BLOCK_PARAGRAPH,
                            TR (N_("No readiness audit was recorded in this session.")));
      return;
    }
  b = _qf_report_add_table (report, QF_BLOCK_TABLE);
  b->verdict_col = 2;
  _qf_report_table_set_header (b, TR (N_("Check")), TR (N_("Found")), TR (N_("Status")),
                               TR (N_("Advice")), NULL);
  for (guint i = 0; i < json_array_get_length (checks); i++)
    {
      JsonObject *c = json_array_get_object_element (checks, i);
      if (c != NULL)
        add_audit_row (report, b, c);
    }
}

/* A network check's fix as printed: the command, then NetworkManager's way to hold it; NULL
 * when there is nothing to do. */
static char *
net_fix_text (JsonObject *check)
{
  const char *fix = str (check, "fix"), *fix_nm = str (check, "fix_nm");
  g_autoptr(GString) out = g_string_new (fix != NULL ? fix : "");

  if (fix_nm != NULL && *fix_nm != '\0' && g_strcmp0 (fix_nm, fix) != 0)
    g_string_append_printf (out, "%s%s", out->len ? "\n" : "", fix_nm);
  return out->len > 0 ? _qf_report_isolate (out->str) : NULL;
}

static void
add_net_audit_row (QfReport   *report,
                   QfBlock    *b,
                   JsonObject *check)
{
  const char *css = NULL;
  const char *word = check_status_word (report, str (check, "status"), &css);
  const char *title = str (check, "title") ? str (check, "title") : str (check, "id");
  /* Strings the audit wrote without figures ("no link", "not reported by this card") are
   * printed in the report's language; the rest as the run recorded them. */
  g_autofree char *t = _qf_report_isolate (title ? TR (title) : NULL);
  g_autofree char *found = _qf_report_isolate (str (check, "found") ? TR (str (check, "found")) : NULL);
  g_autofree char *rec = _qf_report_isolate (str (check, "recommended")
                                             ? TR (str (check, "recommended")) : NULL);
  g_autofree char *fix = net_fix_text (check);

  _qf_report_table_add_row (b, css, t ? t : "?", found ? found : "—", rec ? rec : "—", word,
                            fix != NULL ? fix : "—", NULL);
}

/* The network readiness audit of the interface under test: check, found, recommended, status,
 * fix. Sessions without one (older ones, or no interface named) have no such section. */
static void
add_net_audit (QfReport *report)
{
  JsonObject *net = obj (report->session, "network_audit");
  JsonArray *checks = arr (net, "checks");
  g_autofree char *iface = _qf_report_isolate (str (net, "iface"));
  g_autofree char *intro = NULL;
  QfBlock *b;

  if (checks == NULL || json_array_get_length (checks) == 0)
    return;
  add_heading (report, 2, TR (N_("Network readiness")));
  intro = g_strdup_printf ("%s %s", TR (N_("Settings of the interface under test:")),
                           iface ? iface : "?");
  _qf_report_add_block (report, QF_BLOCK_PARAGRAPH, intro);
  b = _qf_report_add_table (report, QF_BLOCK_TABLE);
  b->id = g_strdup ("qf-network-readiness");
  b->verdict_col = 3;
  _qf_report_table_set_header (b, TR (N_("Check")), TR (N_("Found")), TR (N_("Recommended")),
                               TR (N_("Status")), TR (N_("Fix")), NULL);
  for (guint i = 0; i < json_array_get_length (checks); i++)
    {
      JsonObject *c = json_array_get_object_element (checks, i);
      if (c != NULL)
        add_net_audit_row (report, b, c);
    }
}

/* The PC: host, CPU, memory, release, kernel, preemption, machine id. */
static void
add_inventory (QfReport *report)
{
  JsonObject *s = report->session, *pc = obj (s, "pc");
  gdouble cpus = 0, mem = 0;
  g_autofree char *c = num (pc, "cpu_count", &cpus) ? g_strdup_printf ("%.0f", cpus) : NULL;
  g_autofree char *m = num (pc, "mem_total_kb", &mem)
                       ? g_strdup_printf ("%.1f GiB", mem / 1048576.0) : NULL;
  gboolean rt = json_object_get_boolean_member_with_default (pc ? pc : s, "preempt_rt", FALSE);
  JsonObject *os = obj (pc, "os");
  g_autofree char *release = qf_os_release_describe (str (os, "id"), str (os, "version_id"),
                                                     str (os, "codename"), str (os, "pretty_name"));
  QfBlock *b;

  add_heading (report, 2, TR (N_("System inventory")));
  b = _qf_report_add_table (report, QF_BLOCK_KEY_VALUE);
  kv_user (b, TR (N_("Host name")), str (pc, "hostname"));
  kv_user (b, TR (N_("CPU")), str (pc, "cpu_model"));
  _qf_report_kv (b, TR (N_("CPUs")), c);
  _qf_report_kv (b, TR (N_("Memory")), m);
  kv_user (b, TR (N_("Operating system")), release);
  kv_user (b, TR (N_("Kernel")), str (pc, "kernel_release"));
  kv_user (b, TR (N_("Kernel build")), str (pc, "kernel_version"));
  kv_user (b, TR (N_("Preemption model")), str (pc, "preempt_model"));
  _qf_report_kv (b, TR (N_("PREEMPT_RT")), rt ? TR (N_("yes")) : TR (N_("no")));
  kv_user (b, TR (N_("Machine ID (SHA-256)")), str (pc, "machine_id_sha256"));
}

/* "address (built-in peer on loopback | helper machine | none)" */
static char *
peer_text (QfReport *report)
{
  JsonObject *peer = obj (report->session, "peer");
  const char *kind = str (peer, "kind");
  g_autofree char *address = _qf_report_isolate (str (peer, "address"));

  return g_strdup_printf ("%s (%s)", address ? address : "—",
                          g_strcmp0 (kind, "builtin") == 0 ? TR (N_("built-in peer on loopback"))
                          : g_strcmp0 (kind, "remote") == 0 ? TR (N_("helper machine"))
                          : TR (N_("none")));
}

/* The link the network tests used and the peer they measured against. */
static void
add_network (QfReport *report)
{
  JsonObject *network = obj (report->session, "network");
  const char *kind = str (network, "kind");
  gdouble speed;
  g_autofree char *sp = num (network, "speed_mbps", &speed) ? g_strdup_printf ("%.0f Mbit/s", speed)
                                                            : NULL;
  g_autofree char *peer = peer_text (report);
  QfBlock *b;

  add_heading (report, 2, TR (N_("Network")));
  b = _qf_report_add_table (report, QF_BLOCK_KEY_VALUE);
  kv_user (b, TR (N_("Interface")), str (network, "iface"));
  if (g_strcmp0 (kind, "wired") == 0 || g_strcmp0 (kind, "wireless") == 0 ||
      g_strcmp0 (kind, "loopback") == 0)
    _qf_report_kv (b, TR (N_("Kind")), g_str_equal (kind, "wired") ? TR (N_("wired"))
                                       : g_str_equal (kind, "wireless") ? TR (N_("wireless"))
                                       : TR (N_("loopback")));
  else
    kv_user (b, TR (N_("Kind")), kind);
  _qf_report_kv (b, TR (N_("Link speed")), sp);
  if (str (network, "ssid") != NULL)
    kv_user (b, TR (N_("Wireless network")), str (network, "ssid"));
  _qf_report_kv (b, TR (N_("Peer")), peer);
}

/* A metric's value with its unit, or "—". */
static char *
metric_value (JsonObject *metric,
              const char *key)
{
  gdouble v;

  return num (metric, key, &v) ? _qf_report_format_value_unit (v, str (metric, "unit"))
                               : g_strdup ("—");
}

/* The change "+1.5 µs" / "−2 µs" / "0 µs", or "—". */
static char *
metric_change (JsonObject *metric)
{
  gdouble delta;
  g_autofree char *d = NULL;

  if (!num (metric, "delta", &delta))
    return g_strdup ("—");
  d = _qf_report_format_value_unit (fabs (delta), str (metric, "unit"));
  return g_strdup_printf ("%s%s", delta > 0 ? "+" : delta < 0 ? "−" : "", d);
}

/* Before and after, when the session was compared with the PC's previous one. */
static void
add_comparison (QfReport *report)
{
  JsonObject *cmp = obj (report->session, "comparison"), *prev = obj (cmp, "previous");
  JsonArray *metrics = arr (cmp, "metrics");
  g_autofree char *when = NULL, *intro = NULL, *prev_id = _qf_report_isolate (str (prev, "id"));
  QfBlock *b;

  if (metrics == NULL || json_array_get_length (metrics) == 0)
    return;
  when = _qf_report_format_time (str (prev, "created_at"));
  intro = g_strdup_printf ("%s %s (%s)", TR (N_("Compared with the previous session of this PC:")),
                           prev_id ? prev_id : "?", when);
  add_heading (report, 2, TR (N_("Comparison")));
  _qf_report_add_block (report, QF_BLOCK_PARAGRAPH, intro);
  b = _qf_report_add_table (report, QF_BLOCK_TABLE);
  _qf_report_table_set_header (b, TR (N_("Criterion")), TR (N_("Before")), TR (N_("Now")),
                               TR (N_("Change")), NULL);
  for (guint i = 0; i < json_array_get_length (metrics); i++)
    {
      JsonObject *m = json_array_get_object_element (metrics, i);
      g_autofree char *before = NULL, *after = NULL, *change = NULL, *label = NULL;

      if (m == NULL)
        continue;
      before = metric_value (m, "before");
      after = metric_value (m, "after");
      change = metric_change (m);
      label = _qf_report_isolate (TR (str (m, "label") ? str (m, "label") : str (m, "metric")));
      _qf_report_table_add_row (b, str (m, "after_verdict"), label ? label : "?", before, after,
                                change, NULL);
    }
}

/* Lines for the installer and the customer to sign. */
static void
add_signoff (QfReport *report)
{
  g_autofree char *installer = _qf_report_isolate (str (report->session, "operator"));
  QfBlock *b;

  add_heading (report, 2, TR (N_("Sign-off")));
  _qf_report_add_block (report, QF_BLOCK_PARAGRAPH,
                        TR (N_("The undersigned confirm that the tests above were run on the PC named in this report and that the results were presented to the customer.")));
  b = _qf_report_add_table (report, QF_BLOCK_SIGNOFF);
  _qf_report_table_add_row (b, NULL, TR (N_("Installer")), installer ? installer : "", NULL);
  _qf_report_table_add_row (b, NULL, TR (N_("Customer representative")), "", NULL);
  _qf_report_table_set_header (b, TR (N_("Name")), TR (N_("Date")), TR (N_("Signature")), NULL);
}

/* Where the session data is, and its checksum. */
static void
add_appendix (QfReport *report)
{
  g_autofree char *sha = g_compute_checksum_for_string (G_CHECKSUM_SHA256, report->session_text,
                                                        -1);
  g_autofree char *text = g_strdup_printf ("%s SHA-256: %s",
                                           TR (N_("The complete session data (session.json) travels with this report: attached to the PDF as a file and embedded in the HTML.")),
                                           sha);

  add_heading (report, 2, TR (N_("Appendix: session data")));
  _qf_report_add_block (report, QF_BLOCK_PARAGRAPH, text);
}

void
_qf_report_build (QfReport *report)
{
  if (report->blocks->len > 0)
    return;
  add_title (report);
  add_identity (report);
  add_overall (report);
  add_notes (report);
  add_vm_note (report);
  add_criteria (report);
  add_tests (report);
  add_advice (report);
  add_audit (report);
  add_net_audit (report);
  add_inventory (report);
  add_network (report);
  add_comparison (report);
  add_signoff (report);
  add_appendix (report);
}
