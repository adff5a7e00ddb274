/* qf-discover.c — a DNS-SD browse on a worker thread (src/core). See qf-discover.h. */
#include "config.h"

#include <string.h>

#include "qf-discover.h"
#include "qf-i18n.h"
#include "qf-text.h"

typedef struct
{
  char  *iface;
  guint  duration_ms;
  gint   cancel;      /* the engine's stop flag, set from the GCancellable */
} BrowseData;

static void
browse_data_free (BrowseData *data)
{
  g_free (data->iface);
  g_free (data);
}

/* Any thread: the one that cancels. */
static void
browse_cancelled (GCancellable *cancellable,
                  BrowseData   *data)
{
  g_atomic_int_set (&data->cancel, 1);
}

/* The worker thread. */
static void
browse_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  BrowseData *data = task_data;
  GError *error = NULL;
  GPtrArray *helpers;
  gulong handler = 0;

  if (cancellable != NULL)
    handler = g_cancellable_connect (cancellable, G_CALLBACK (browse_cancelled), data, NULL);
  helpers = qf_discovery_browse (data->iface, data->duration_ms, &data->cancel, NULL, NULL, &error);
  if (cancellable != NULL)
    g_cancellable_disconnect (cancellable, handler);
  if (g_task_return_error_if_cancelled (task))
    {
      g_clear_pointer (&helpers, g_ptr_array_unref);
      g_clear_error (&error);
    }
  else if (helpers == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, helpers, (GDestroyNotify) g_ptr_array_unref);
}

void
qf_discover_async (const char          *iface,
                   guint                duration_ms,
                   GCancellable        *cancellable,
                   GAsyncReadyCallback  callback,
                   gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  BrowseData *data = g_new0 (BrowseData, 1);

  data->iface = g_strdup (iface);
  data->duration_ms = duration_ms;
  g_task_set_source_tag (task, qf_discover_async);
  g_task_set_task_data (task, data, (GDestroyNotify) browse_data_free);
  g_task_run_in_thread (task, browse_thread);
}

GPtrArray *
qf_discover_finish (GAsyncResult  *result,
                    GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- names announced twice ----------------------------------------------------------------- */

/* A name as mDNS compares it: whatever the case. NULL for none. */
static char *
name_key (const char *name)
{
  return name != NULL && *name != '\0' ? g_utf8_casefold (name, -1) : NULL;
}

/* The instance's own label: "Lab PC" of "Lab PC._qualify._tcp.local". */
static char *
instance_label (const QfHelperInfo *helper)
{
  const char *dot = helper->instance != NULL ? strstr (helper->instance, "._qualify._tcp") : NULL;

  if (helper->instance == NULL)
    return NULL;
  return dot != NULL ? g_strndup (helper->instance, dot - helper->instance) : g_strdup (helper->instance);
}

static gboolean
same_name (const QfHelperInfo *a,
           const QfHelperInfo *b)
{
  g_autofree char *a_label = instance_label (a), *b_label = instance_label (b);
  g_autofree char *a_instance = name_key (a_label), *b_instance = name_key (b_label);
  g_autofree char *a_name = name_key (a->name), *b_name = name_key (b->name);

  if (g_strcmp0 (a->iface, b->iface) != 0)
    return FALSE;
  return (a_instance != NULL && g_strcmp0 (a_instance, b_instance) == 0)
         || (a_name != NULL && g_strcmp0 (a_name, b_name) == 0);
}

gboolean
qf_discover_name_in_conflict (GPtrArray          *helpers,
                              const QfHelperInfo *helper)
{
  g_return_val_if_fail (helpers != NULL && helper != NULL, FALSE);
  for (guint i = 0; i < helpers->len; i++)
    {
      const QfHelperInfo *other = g_ptr_array_index (helpers, i);

      if (other != helper && same_name (helper, other))
        return TRUE;
    }
  return FALSE;
}

/* "“Lab PC” (fe80::1%eth0), “Impostor” (203.0.113.5)": the helpers of one conflict. */
static char *
describe_group (GPtrArray  *helpers,
                guint       first,
                gboolean   *listed)
{
  const QfHelperInfo *lead = g_ptr_array_index (helpers, first);
  GString *text = g_string_new (NULL);

  for (guint i = first; i < helpers->len; i++)
    {
      const QfHelperInfo *h = g_ptr_array_index (helpers, i);
      const char *best = qf_helper_info_best_address (h);
      g_autofree char *address = NULL;

      if (listed[i] || (i != first && !same_name (lead, h)))
        continue;
      listed[i] = TRUE;
      address = qf_text_clean (best != NULL ? best : "?", -1);   /* its scope is an interface */
      g_string_append_printf (text, "%s“%s” (%s)", text->len > 0 ? ", " : "",
                              h->name != NULL && *h->name != '\0' ? h->name : h->instance, address);
    }
  return g_string_free (text, FALSE);
}

char *
qf_discover_describe_conflicts (GPtrArray *helpers)
{
  g_autofree gboolean *listed = NULL;
  GString *text = g_string_new (NULL);

  g_return_val_if_fail (helpers != NULL, NULL);
  listed = g_new0 (gboolean, helpers->len);
  for (guint i = 0; i < helpers->len; i++)
    {
      const QfHelperInfo *h = g_ptr_array_index (helpers, i);
      g_autofree char *label = NULL, *iface = NULL, *who = NULL;

      if (listed[i] || !qf_discover_name_in_conflict (helpers, h))
        continue;
      label = instance_label (h);
      iface = qf_text_clean (h->iface != NULL ? h->iface : "?", -1);
      who = describe_group (helpers, i, listed);
      g_string_append_printf (text, _("%sSeveral machines on %s announce the same name “%s”: %s. "
                                      "One of them may be posing as the other: choose the helper "
                                      "machine by its address, and give the machines different "
                                      "names."),
                              text->len > 0 ? "\n" : "", iface, label != NULL ? label : h->name, who);
    }
  if (text->len == 0)
    {
      g_string_free (text, TRUE);
      return NULL;
    }
  return g_string_free (text, FALSE);
}
