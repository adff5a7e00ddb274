/* qf-step-status.h — where one step of a session stands: waiting, running, done, … (src/core).
 * The status is kept in session.json by its name and shown to people by its label. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  QF_STEP_STATUS_PENDING,
  QF_STEP_STATUS_RUNNING,
  QF_STEP_STATUS_DONE,
  QF_STEP_STATUS_FAILED,
  QF_STEP_STATUS_CANCELLED,
  QF_STEP_STATUS_SKIPPED,
  QF_STEP_STATUS_NOT_RUN,
} QfStepStatus;

/* "pending", "running", "done", "failed", "cancelled", "skipped", "not-run" */
const char *qf_step_status_to_string   (QfStepStatus status);
gboolean    qf_step_status_from_string (const char   *text,
                                        QfStepStatus *out);
/* Translated: "Waiting", "Running", "Done", "Failed", "Cancelled", "Skipped", "Not run". */
const char *qf_step_status_to_label    (QfStepStatus status);

G_END_DECLS
