/* qf-report-build.c — the report's blocks, section by section (src/core, report model).
 *
 * Turns the session into the blocks both writers render, in the report's language: title and
 * identity, overall verdict, notes, criteria table, one section per test (qf-report-steps.c),
 * advice, readiness audit, inventory, network, comparison, sign-off and the appendix note.
 * Figures are printed as the engines stored them; nothing is recomputed.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "qf-report-format.h"
#include "qf-report-json.h"
#include "qf-report-steps.h"

void
_qf_report_build (QfReport *report)
{
  JsonObject *s = report->session, *pc = obj (s, "pc"), *profile = obj (s, "profile");
  JsonObject *network = obj (s, "network"), *peer = obj (s, "peer"), *audit = obj (s, "audit");
  JsonArray *steps = arr (s, "steps"), *notes = arr (s, "notes"), *advice = arr (s, "advice");
  JsonObject *training = obj (s, "training");
  g_autofree char *training_note = NULL;
  const char *host = str (pc, "hostname") ? str (pc, "hostname") : "?";
  g_autofree char *date = _qf_report_format_time (str (s, "finished_at") ? str (s, "finished_at") : str (s, "created_at"));
  QfBlock *b;

  if (report->blocks->len > 0)
    return;

  g_free (report->title);
  /* a training run must never pass for an acceptance: it says so in the title and every header */
  report->title = g_strdup (training != NULL ? TR (N_("Training session — not an acceptance report"))
                                             : TR (N_("Acceptance report")));
  g_free (report->header_left);
  report->header_left = g_strdup_printf ("%s — %s", report->title, host);
  g_free (report->header_right);
  report->header_right = g_strdup (date);

  b = _qf_report_add_block (report, QF_BLOCK_TITLE, training != NULL ? report->title : TR (N_("Real-time PC acceptance report")));
  b->text2 = g_strdup_printf ("%s · %s", host, str (s, "customer") && *str (s, "customer") ? str (s, "customer") : "—");

  b = _qf_report_add_table (report, QF_BLOCK_KEY_VALUE);
  _qf_report_kv (b, TR (N_("Customer")), str (s, "customer"));
  _qf_report_kv (b, TR (N_("Site")), str (s, "site"));
  {
    g_autofree char *pcs = NULL;
    const char *vendor = str (pc, "dmi_vendor"), *product = str (pc, "dmi_product");
    if (vendor || product)
      pcs = g_strdup_printf ("%s (%s%s%s)", host, vendor ? vendor : "", vendor && product ? " " : "", product ? product : "");
    else
      pcs = g_strdup (host);
    _qf_report_kv (b, TR (N_("PC under test")), pcs);
  }
  if (str (pc, "dmi_serial") != NULL)
    _qf_report_kv (b, TR (N_("Serial number")), str (pc, "dmi_serial"));
  _qf_report_kv (b, TR (N_("Operator")), str (s, "operator"));
  _qf_report_kv (b, TR (N_("Date and time")), date);
  {
    g_autofree char *v = g_strdup_printf ("%s (%s %s)", str (s, "app_version") ? str (s, "app_version") : "?",
                                          TR (N_("report written by")), PACKAGE_VERSION);
    _qf_report_kv (b, TR (N_("Qualify version")), v);
  }
  {
    gdouble version = 0;
    g_autofree char *p = NULL;
    num (profile, "version", &version);
    p = g_strdup_printf ("%s, %s %.0f%s%s%s", str (profile, "id") ? str (profile, "id") : "?",
                         TR (N_("version")), version,
                         str (profile, "name") ? " — " : "", str (profile, "name") ? TR (str (profile, "name")) : "",
                         json_object_get_boolean_member_with_default (s, "quick", FALSE) ? TR (N_(" (quick run)")) : "");
    _qf_report_kv (b, TR (N_("Profile")), p);
  }
  _qf_report_kv (b, TR (N_("Session")), str (s, "id"));

  {
    const char *css = NULL;
    g_autofree char *overall = _qf_report_overall_text (report, &css);
    JsonObject *v = obj (s, "verdict");
    gdouble warnings = 0;
    b = _qf_report_add_block (report, QF_BLOCK_VERDICT, overall);
    b->css = g_strdup (css);
    b->id = g_strdup ("qf-overall");
    num (v, "warnings", &warnings);
    if (warnings > 0)
      b->text2 = g_strdup_printf ("%s: %.0f", TR (N_("Warnings")), warnings);
    else
      b->text2 = g_strdup (TR (N_("Overall verdict")));
    if (training != NULL)
      {
        g_autofree char *with = g_strdup_printf ("%s — %s", b->text2, TR (N_("training run, not an acceptance")));
        g_free (b->text2);
        b->text2 = g_steal_pointer (&with);
      }
  }

  for (guint i = 0; notes != NULL && i < json_array_get_length (notes); i++)
    {
      JsonObject *n = json_array_get_object_element (notes, i);
      const char *id = str (n, "id"), *text = str (n, "text");
      if (g_strcmp0 (id, "builtin-peer") == 0)
        text = TR (N_("Network figures were measured on this PC's loopback with the built-in peer, not over a real link to a helper machine."));
      else if (g_strcmp0 (id, "training") == 0 && training != NULL)
        {
          gdouble delay_ms = 0, jitter_ms = 0, loss_pct = 0;
          g_autofree char *delay = (num (training, "delay_ms", &delay_ms), g_strdup_printf ("%.3g", delay_ms));
          g_autofree char *jitter = (num (training, "jitter_ms", &jitter_ms), g_strdup_printf ("%.3g", jitter_ms));
          g_autofree char *loss = (num (training, "loss_pct", &loss_pct), g_strdup_printf ("%.3g", loss_pct));

          g_free (training_note);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
          text = training_note = g_strdup_printf (TR (N_("Training run, not an acceptance test: the built-in peer imitated a link that holds each reply %s ms ± %s ms and loses %s %% of UDP replies. Only the socket-latency and control-cycle tests go through it; ping and bandwidth measure this PC's loopback.")),
                                                  delay, jitter, loss);
#pragma GCC diagnostic pop
        }
      else if (g_strcmp0 (id, "demo-profile") == 0)
        text = TR (N_("The limits come from a demonstration profile, not from the procedure."));
      if (text != NULL)
        _qf_report_add_block (report, QF_BLOCK_NOTE, text);
    }

  _qf_report_add_block (report, QF_BLOCK_HEADING, TR (N_("Criteria")))->level = 2;
  {
    g_autoptr(GPtrArray) row_css = NULL;
    g_autoptr(GPtrArray) rows = _qf_report_criteria_rows (report, &row_css);
    b = _qf_report_add_table (report, QF_BLOCK_TABLE);
    b->id = g_strdup ("qf-criteria");
    b->verdict_col = 4;
    g_ptr_array_add (b->header, g_strdup (TR (N_("Test"))));
    g_ptr_array_add (b->header, g_strdup (TR (N_("Criterion"))));
    g_ptr_array_add (b->header, g_strdup (TR (N_("Measured"))));
    g_ptr_array_add (b->header, g_strdup (TR (N_("Limit"))));
    g_ptr_array_add (b->header, g_strdup (TR (N_("Verdict"))));
    for (guint i = 0; i < rows->len; i++)
      {
        g_ptr_array_add (b->rows, g_ptr_array_ref (g_ptr_array_index (rows, i)));
        g_ptr_array_add (b->row_css, g_strdup (g_ptr_array_index (row_css, i)));
      }
    if (rows->len == 0)
      _qf_report_add_block (report, QF_BLOCK_PARAGRAPH, TR (N_("No criterion was judged.")));
  }

  _qf_report_add_block (report, QF_BLOCK_PAGE_BREAK, NULL);
  _qf_report_add_block (report, QF_BLOCK_HEADING, TR (N_("Tests")))->level = 2;
  for (guint i = 0; steps != NULL && i < json_array_get_length (steps); i++)
    {
      JsonObject *step = json_array_get_object_element (steps, i);
      if (step != NULL)
        _qf_report_add_step_section (report, step, i + 1);
    }

  _qf_report_add_block (report, QF_BLOCK_HEADING, TR (N_("Advice")))->level = 2;
  if (advice == NULL || json_array_get_length (advice) == 0)
    _qf_report_add_block (report, QF_BLOCK_PARAGRAPH, TR (N_("Every criterion passed: no advice.")));
  for (guint i = 0; advice != NULL && i < json_array_get_length (advice); i++)
    {
      JsonObject *a = json_array_get_object_element (advice, i);
      g_autofree char *head = NULL;
      if (a == NULL)
        continue;
      head = g_strdup_printf ("%s — %s", _qf_report_verdict_word (report, str (a, "verdict")),
                              str (a, "summary") ? str (a, "summary") : "");
      b = _qf_report_add_block (report, QF_BLOCK_NOTE, head);
      b->css = g_strdup (str (a, "verdict"));
      if (str (a, "text") != NULL && g_strcmp0 (str (a, "text"), str (a, "summary")) != 0)
        _qf_report_add_block (report, QF_BLOCK_PARAGRAPH, str (a, "text"));
      else if (str (a, "fix") != NULL)
        _qf_report_add_block (report, QF_BLOCK_PARAGRAPH, str (a, "fix"));
    }

  _qf_report_add_block (report, QF_BLOCK_HEADING, TR (N_("Readiness audit")))->level = 2;
  {
    JsonArray *checks = audit != NULL ? arr (audit, "checks") : NULL;
    if (checks == NULL && member (s, "audit") != NULL && JSON_NODE_HOLDS_ARRAY (member (s, "audit")))
      checks = json_node_get_array (member (s, "audit"));
    if (checks == NULL || json_array_get_length (checks) == 0)
      _qf_report_add_block (report, QF_BLOCK_PARAGRAPH, TR (N_("No readiness audit was recorded in this session.")));
    else
      {
        b = _qf_report_add_table (report, QF_BLOCK_TABLE);
        b->verdict_col = 2;
        g_ptr_array_add (b->header, g_strdup (TR (N_("Check"))));
        g_ptr_array_add (b->header, g_strdup (TR (N_("Found"))));
        g_ptr_array_add (b->header, g_strdup (TR (N_("Status"))));
        g_ptr_array_add (b->header, g_strdup (TR (N_("Advice"))));
        for (guint i = 0; i < json_array_get_length (checks); i++)
          {
            JsonObject *c = json_array_get_object_element (checks, i);
            const char *st = str (c, "status");
            const char *css = g_strcmp0 (st, "ok") == 0 ? "pass" : g_strcmp0 (st, "unknown") == 0 ? "not-run" : st;
            const char *word = g_strcmp0 (st, "ok") == 0 ? TR (N_("OK")) : g_strcmp0 (st, "warn") == 0 ? TR (N_("WARN"))
                             : g_strcmp0 (st, "fail") == 0 ? TR (N_("FAIL")) : TR (N_("unknown"));
            if (c == NULL)
              continue;
            _qf_report_table_add_row (b, css, str (c, "title") ? TR (str (c, "title")) : str (c, "id"),
                                      str (c, "value") ? str (c, "value") : "—", word,
                                      g_strcmp0 (st, "ok") == 0 ? "" : (str (c, "advice") ? str (c, "advice") : ""), NULL);
          }
      }
  }

  _qf_report_add_block (report, QF_BLOCK_HEADING, TR (N_("System inventory")))->level = 2;
  b = _qf_report_add_table (report, QF_BLOCK_KEY_VALUE);
  _qf_report_kv (b, TR (N_("Host name")), host);
  _qf_report_kv (b, TR (N_("CPU")), str (pc, "cpu_model"));
  {
    gdouble cpus = 0, mem = 0;
    g_autofree char *c = num (pc, "cpu_count", &cpus) ? g_strdup_printf ("%.0f", cpus) : NULL;
    g_autofree char *m = num (pc, "mem_total_kb", &mem) ? g_strdup_printf ("%.1f GiB", mem / 1048576.0) : NULL;
    _qf_report_kv (b, TR (N_("CPUs")), c);
    _qf_report_kv (b, TR (N_("Memory")), m);
  }
  _qf_report_kv (b, TR (N_("Kernel")), str (pc, "kernel_release"));
  _qf_report_kv (b, TR (N_("Kernel build")), str (pc, "kernel_version"));
  _qf_report_kv (b, TR (N_("Preemption model")), str (pc, "preempt_model"));
  _qf_report_kv (b, TR (N_("PREEMPT_RT")), json_object_get_boolean_member_with_default (pc ? pc : s, "preempt_rt", FALSE)
                                           ? TR (N_("yes")) : TR (N_("no")));
  _qf_report_kv (b, TR (N_("Machine ID (SHA-256)")), str (pc, "machine_id_sha256"));

  _qf_report_add_block (report, QF_BLOCK_HEADING, TR (N_("Network")))->level = 2;
  b = _qf_report_add_table (report, QF_BLOCK_KEY_VALUE);
  _qf_report_kv (b, TR (N_("Interface")), str (network, "iface"));
  {
    const char *kind = str (network, "kind");
    _qf_report_kv (b, TR (N_("Kind")), g_strcmp0 (kind, "wired") == 0 ? TR (N_("wired"))
                                      : g_strcmp0 (kind, "wireless") == 0 ? TR (N_("wireless"))
                                      : g_strcmp0 (kind, "loopback") == 0 ? TR (N_("loopback")) : kind);
  }
  {
    gdouble speed;
    g_autofree char *sp = num (network, "speed_mbps", &speed) ? g_strdup_printf ("%.0f Mbit/s", speed) : NULL;
    _qf_report_kv (b, TR (N_("Link speed")), sp);
  }
  if (str (network, "ssid") != NULL)
    _qf_report_kv (b, TR (N_("Wireless network")), str (network, "ssid"));
  {
    const char *kind = str (peer, "kind");
    g_autofree char *p = g_strdup_printf ("%s (%s)", str (peer, "address") ? str (peer, "address") : "—",
                                          g_strcmp0 (kind, "builtin") == 0 ? TR (N_("built-in peer on loopback"))
                                          : g_strcmp0 (kind, "remote") == 0 ? TR (N_("helper machine"))
                                          : TR (N_("none")));
    _qf_report_kv (b, TR (N_("Peer")), p);
  }

  {
    JsonObject *cmp = obj (s, "comparison");
    JsonArray *metrics = arr (cmp, "metrics");
    if (metrics != NULL && json_array_get_length (metrics) > 0)
      {
        JsonObject *prev = obj (cmp, "previous");
        g_autofree char *when = _qf_report_format_time (str (prev, "created_at"));
        g_autofree char *intro = g_strdup_printf ("%s %s (%s)", TR (N_("Compared with the previous session of this PC:")),
                                                  str (prev, "id") ? str (prev, "id") : "?", when);
        _qf_report_add_block (report, QF_BLOCK_HEADING, TR (N_("Comparison")))->level = 2;
        _qf_report_add_block (report, QF_BLOCK_PARAGRAPH, intro);
        b = _qf_report_add_table (report, QF_BLOCK_TABLE);
        g_ptr_array_add (b->header, g_strdup (TR (N_("Criterion"))));
        g_ptr_array_add (b->header, g_strdup (TR (N_("Before"))));
        g_ptr_array_add (b->header, g_strdup (TR (N_("Now"))));
        g_ptr_array_add (b->header, g_strdup (TR (N_("Change"))));
        for (guint i = 0; i < json_array_get_length (metrics); i++)
          {
            JsonObject *m = json_array_get_object_element (metrics, i);
            gdouble before, after, delta;
            g_autofree char *bs = NULL, *as = NULL, *ds = NULL;
            if (m == NULL)
              continue;
            bs = num (m, "before", &before) ? _qf_report_format_value_unit (before, str (m, "unit")) : g_strdup ("—");
            as = num (m, "after", &after) ? _qf_report_format_value_unit (after, str (m, "unit")) : g_strdup ("—");
            if (num (m, "delta", &delta))
              {
                g_autofree char *d = _qf_report_format_value_unit (fabs (delta), str (m, "unit"));
                ds = g_strdup_printf ("%s%s", delta > 0 ? "+" : delta < 0 ? "−" : "", d);
              }
            else
              ds = g_strdup ("—");
            _qf_report_table_add_row (b, str (m, "after_verdict"), TR (str (m, "label") ? str (m, "label") : str (m, "metric")),
                                      bs, as, ds, NULL);
          }
      }
  }

  _qf_report_add_block (report, QF_BLOCK_HEADING, TR (N_("Sign-off")))->level = 2;
  _qf_report_add_block (report, QF_BLOCK_PARAGRAPH,
                        TR (N_("The undersigned confirm that the tests above were run on the PC named in this report and that the results were presented to the customer.")));
  b = _qf_report_add_table (report, QF_BLOCK_SIGNOFF);
  _qf_report_table_add_row (b, NULL, TR (N_("Installer")), str (s, "operator") ? str (s, "operator") : "", NULL);
  _qf_report_table_add_row (b, NULL, TR (N_("Customer representative")), "", NULL);
  g_ptr_array_add (b->header, g_strdup (TR (N_("Name"))));
  g_ptr_array_add (b->header, g_strdup (TR (N_("Date"))));
  g_ptr_array_add (b->header, g_strdup (TR (N_("Signature"))));

  _qf_report_add_block (report, QF_BLOCK_HEADING, TR (N_("Appendix: session data")))->level = 2;
  {
    g_autofree char *sha = g_compute_checksum_for_string (G_CHECKSUM_SHA256, report->session_text, -1);
    g_autofree char *text = g_strdup_printf ("%s SHA-256: %s",
                                             TR (N_("The complete session data (session.json) travels with this report: attached to the PDF as a file and embedded in the HTML.")),
                                             sha);
    _qf_report_add_block (report, QF_BLOCK_PARAGRAPH, text);
  }
}
