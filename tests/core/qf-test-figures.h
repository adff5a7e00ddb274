/* qf-test-figures.h — a check the step tests share (tests/core): a real result's members and
 * the parameters given are all listed in the step's tables (QfStepInfo.figures, .params). */
#pragma once

#include "qf-step.h"

/* Every number and text of the result is listed in the step's figures, every parameter given in
 * its parameters, so the report can label them all (it leaves out what is not listed). */
static inline void
assert_all_listed (const QfStepInfo *step,
                   JsonObject       *params,
                   JsonObject       *result)
{
  g_autoptr(GList) members = json_object_get_members (result);
  g_autoptr(GList) given = json_object_get_members (params);

  for (GList *l = members; l != NULL; l = l->next)
    {
      JsonNode *n = json_object_get_member (result, l->data);
      if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) != G_TYPE_BOOLEAN
          && qf_step_find_figure (step, l->data) == NULL)
        g_error ("%s: result member “%s” has no figure entry", step->id, (const char *) l->data);
    }
  for (GList *l = given; l != NULL; l = l->next)
    if (qf_step_find_param (step, l->data) == NULL)
      g_error ("%s: parameter “%s” has no entry", step->id, (const char *) l->data);
}
