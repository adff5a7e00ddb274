/* qf-step-status.c — a step's status: its name in session.json and its label (src/core).
 * See qf-step-status.h. */
#include "config.h"


#include "qf-i18n.h"
#include "qf-step-status.h"

static const char *const status_names[] = {
  "pending", "running", "done", "failed", "cancelled", "skipped", "not-run"
};

const char *
qf_step_status_to_string (QfStepStatus status)
{
  g_return_val_if_fail (status <= QF_STEP_STATUS_NOT_RUN, "not-run");
  return status_names[status];
}

gboolean
qf_step_status_from_string (const char   *text,
                            QfStepStatus *out)
{
  for (guint i = 0; i < G_N_ELEMENTS (status_names); i++)
    if (g_strcmp0 (text, status_names[i]) == 0)
      {
        *out = (QfStepStatus) i;
        return TRUE;
      }
  return FALSE;
}

const char *
qf_step_status_to_label (QfStepStatus status)
{
  switch (status)
    {
    case QF_STEP_STATUS_PENDING:
      return _("Waiting");
    case QF_STEP_STATUS_RUNNING:
      return _("Running");
    case QF_STEP_STATUS_DONE:
      return _("Done");
    case QF_STEP_STATUS_FAILED:
      return _("Failed");
    case QF_STEP_STATUS_CANCELLED:
      return _("Cancelled");
    case QF_STEP_STATUS_SKIPPED:
      return _("Skipped");
    case QF_STEP_STATUS_NOT_RUN:
    default:
      return _("Not run");
    }
}
