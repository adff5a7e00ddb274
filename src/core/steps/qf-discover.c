/* qf-discover.c — a DNS-SD browse on a worker thread (src/core). See qf-discover.h. */
#include "config.h"

#include "qf-discover.h"

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
