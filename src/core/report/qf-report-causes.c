/* qf-report-causes.c — "Why it was slow": a traced test's spikes in the report (src/core, report
 * model); see qf-report-causes.h.
 *
 * Every sentence and label is told again by the step (qf-step-trace.h) in the report's
 * language from the stored breakdown; the figures are the stored ones. Names the kernel gave
 * (tasks, interrupts) are isolated like every text Qualify did not write.
 */
#include "config.h"

#include <string.h>

#include "qf-i18n.h"
#include "qf-report-causes.h"
#include "qf-report-format.h"
#include "qf-report-json.h"
#include "qf-spike-plot.h"
#include "qf-step-trace.h"

#define MAX_SENTENCES 5

/* TR for a printf format: the translation keeps the msgid's conversions. */
static const char *format_tr (QfReport *report, const char *msgid) G_GNUC_FORMAT (2);

static const char *
format_tr (QfReport   *report,
           const char *msgid)
{
  return _qf_report_tr (report, msgid);
}

/* What was recorded, in one paragraph. */
static void
add_recorded (QfReport   *report,
              JsonObject *trace)
{
  JsonArray *events = arr (trace, "events");
  g_autoptr(GString) names = g_string_new (NULL);
  gdouble buffer_kb = 0, read = 0, lost = 0, kept = 0;
  g_autofree char *text = NULL;

  for (guint i = 0; events != NULL && i < json_array_get_length (events); i++)
    {
      const char *event = json_array_get_string_element (events, i);
      const char *slash = event != NULL ? strchr (event, '/') : NULL;

      g_string_append_printf (names, "%s%s", i > 0 ? ", " : "", slash != NULL ? slash + 1 : event);
    }
  num (trace, "buffer_kb_per_cpu", &buffer_kb);
  num (trace, "events_read", &read);
  num (trace, "events_lost", &lost);
  num (trace, "worst_spikes_kept", &kept);
  text = g_strdup_printf (format_tr (report, N_("The kernel’s trace was recorded during the test in an instance "
                                 "of its own (tracepoints %s; %.0f KiB per CPU): %.0f events read, "
                                 "%.0f lost; the events around the %.0f worst spikes and the "
                                 "worst of each CPU were kept.")),
                          names->str, buffer_kb, read, lost, kept);
  _qf_report_add_block (report, QF_BLOCK_PARAGRAPH, text);
}

/* The worst spike's breakdown: what held the CPU, how long, which share. */
static void
add_breakdown (QfReport   *report,
               JsonObject *cause)
{
  JsonArray *items = arr (cause, "breakdown");
  gdouble latency = 0;
  QfBlock *t;

  if (items == NULL || json_array_get_length (items) == 0)
    return;
  num (cause, "latency_us", &latency);
  t = _qf_report_add_table (report, QF_BLOCK_TABLE);
  _qf_report_table_set_header (t, TR (N_("What held the CPU")), TR (N_("Time")), TR (N_("Share")),
                               NULL);
  for (guint i = 0; i < json_array_get_length (items); i++)
    {
      JsonObject *item = json_array_get_object_element (items, i);
      g_autofree char *label = qf_step_trace_item_label (item, _qf_report_translate, report);
      g_autofree char *isolated = _qf_report_isolate (label);
      gdouble us = 0;
      g_autofree char *time = NULL, *share = NULL;

      num (item, "duration_us", &us);
      time = qf_step_trace_format_us (us);
      share = g_strdup_printf ("%.1f %%", latency > 0 ? 100 * us / latency : 0);
      _qf_report_table_add_row (t, NULL, isolated, time, share, NULL);
    }
}

static void
add_timeline (QfReport   *report,
              JsonObject *step,
              JsonObject *result)
{
  JsonObject *timeline = qf_spike_plot_timeline (result);
  QfBlock *b;

  if (timeline == NULL)
    return;
  b = _qf_report_add_block (report, QF_BLOCK_FIGURE, NULL);
  b->figure = QF_FIGURE_SPIKE_TIMELINE;
  b->result = json_object_ref (timeline);
  b->fig_title = g_strdup_printf ("%s — %s", _qf_report_step_title (report, step),
                                  TR (N_("the worst spike")));
}

void
_qf_report_add_latency_causes (QfReport         *report,
                               const QfStepInfo *info,
                               JsonObject       *step,
                               JsonObject       *result)
{
  JsonObject *trace = obj (result, "trace");
  JsonArray *causes = arr (result, "latency_causes");
  guint n = causes != NULL ? json_array_get_length (causes) : 0;

  if (info == NULL || info->spikes == QF_STEP_SPIKES_NONE || trace == NULL)
    return;
  _qf_report_add_block (report, QF_BLOCK_HEADING, TR (N_("Why it was slow")))->level = 2;
  if (!json_object_get_boolean_member_with_default (trace, "recorded", FALSE))
    {
      g_autofree char *reason = _qf_report_isolate (str (trace, "reason"));
      g_autofree char *text = g_strdup_printf (format_tr (report, N_("Not traced: %s")), reason ? reason : "");
      _qf_report_add_block (report, QF_BLOCK_PARAGRAPH, text);
      return;
    }
  add_recorded (report, trace);
  if (n == 0)
    {
      _qf_report_add_block (report, QF_BLOCK_PARAGRAPH,
                            TR (N_("No cycle was late enough to mark: no spike to explain.")));
      return;
    }
  for (guint i = 0; i < MIN (n, MAX_SENTENCES); i++)
    {
      g_autofree char *sentence = qf_step_trace_sentence (info, json_array_get_object_element (causes, i),
                                                          i == 0, _qf_report_translate, report);
      _qf_report_add_block (report, QF_BLOCK_PARAGRAPH, sentence);
    }
  add_breakdown (report, json_array_get_object_element (causes, 0));
  add_timeline (report, step, result);
}
