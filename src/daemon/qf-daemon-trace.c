/* qf-daemon-trace.c — a kernel-trace instance for a caller (src/daemon); see
 * qf-daemon-trace.h. */
#include "config.h"

#include <unistd.h>

#include "qf-daemon-error.h"
#include "qf-daemon-trace.h"
#include "qf-i18n.h"
#include "qf-qualifyd-protocol.h"
#include "qf-tracefs.h"

static guint n_traces;   /* instances open for callers now */

static gboolean
trace_still_held (QfCaller *caller,
                  gpointer  resource)
{
  return TRUE;
}

static gboolean
remove_instance (QfCaller          *caller,
                 QfTracefsInstance *instance,
                 GError           **error)
{
  g_autofree char *name = g_strdup (qf_tracefs_instance_info (instance)->instance);

  n_traces--;
  if (!qf_tracefs_instance_remove (instance, error))
    return FALSE;
  g_message ("trace instance %s of pid %d (uid %u) removed", name,
             (int) qf_caller_pid (caller), (guint) qf_caller_uid (caller));
  return TRUE;
}

static void
trace_release (QfCaller *caller,
               gpointer  resource)
{
  g_autoptr(GError) error = NULL;

  if (!remove_instance (caller, resource, &error))
    g_message ("%s", error->message);
}

static const QfHoldClass trace_class = { "trace instance", trace_still_held, trace_release };

static gboolean
may_open (QfCaller *caller,
          GError  **error)
{
  if (!qf_caller_is_current (caller))
    {
      g_set_error (error, QF_DAEMON_ERROR, QF_DAEMON_ERROR_FAILED,
                   _("Process %d, which asked, has ended"), (int) qf_caller_pid (caller));
      return FALSE;
    }
  if (qf_caller_count_held (caller, &trace_class) > 0)
    {
      g_set_error (error, QF_DAEMON_ERROR, QF_DAEMON_ERROR_TOO_MANY_TRACES,
                   _("Process %d already holds a trace instance; close it first"),
                   (int) qf_caller_pid (caller));
      return FALSE;
    }
  if (n_traces >= QF_DAEMON_MAX_TRACES)
    {
      g_set_error (error, QF_DAEMON_ERROR, QF_DAEMON_ERROR_TOO_MANY_TRACES,
                   _("%u trace instances are open for other processes already; try when one of "
                     "their runs has ended"), n_traces);
      return FALSE;
    }
  return TRUE;
}

static GVariant *
strv_variant (GStrv strv)
{
  return g_variant_new_strv ((const char *const *) strv, strv != NULL ? -1 : 0);
}

static GVariant *
info_variant (const QfTracefsInfo *info)
{
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE ("a{sv}"));
  g_variant_builder_add (&b, "{sv}", QF_QUALIFYD_TRACE_INSTANCE,
                         g_variant_new_string (info->instance));
  g_variant_builder_add (&b, "{sv}", QF_QUALIFYD_TRACE_MOUNT, g_variant_new_string (info->mount));
  g_variant_builder_add (&b, "{sv}", QF_QUALIFYD_TRACE_BUFFER_KB,
                         g_variant_new_uint32 (info->buffer_kb));
  g_variant_builder_add (&b, "{sv}", QF_QUALIFYD_TRACE_CLOCK, g_variant_new_string (info->clock));
  g_variant_builder_add (&b, "{sv}", QF_QUALIFYD_TRACE_EVENTS, strv_variant (info->events));
  g_variant_builder_add (&b, "{sv}", QF_QUALIFYD_TRACE_EVENTS_MISSING,
                         strv_variant (info->events_missing));
  g_variant_builder_add (&b, "{sv}", QF_QUALIFYD_TRACE_TRACERS, strv_variant (info->tracers));
  return g_variant_builder_end (&b);
}

/* Appends fd (a copy; -1 stays -1) and returns its handle. */
static gint32
add_fd (GUnixFDList *list,
        int          fd,
        GError     **error)
{
  return fd >= 0 ? g_unix_fd_list_append (list, fd, error) : -1;
}

static GVariant *
reply_variant (const QfTracefsInfo *info,
               const QfTraceFds    *tfds,
               GUnixFDList         *list,
               GError             **error)
{
  GVariantBuilder formats, cpus;
  gint32 marker, header;

  g_variant_builder_init (&formats, G_VARIANT_TYPE ("a{sh}"));
  g_variant_builder_init (&cpus, G_VARIANT_TYPE ("ah"));
  if ((marker = add_fd (list, tfds->marker_fd, error)) < 0 ||
      (header = add_fd (list, tfds->header_page_fd, error)) < 0)
    goto failed;
  for (guint i = 0; i < QF_TRACE_N_EVENTS; i++)
    {
      gint32 h;

      if (tfds->format_fd[i] < 0)
        continue;
      if ((h = add_fd (list, tfds->format_fd[i], error)) < 0)
        goto failed;
      g_variant_builder_add (&formats, "{sh}", qf_trace_event_names[i], h);
    }
  for (guint cpu = 0; cpu < tfds->n_cpus; cpu++)
    {
      gint32 h = add_fd (list, tfds->cpu_fd[cpu], error);

      if (h < 0 && tfds->cpu_fd[cpu] >= 0)
        goto failed;
      g_variant_builder_add (&cpus, "h", h);
    }
  return g_variant_new ("(@a{sv}hha{sh}ah)", info_variant (info), marker, header, &formats,
                        &cpus);
failed:
  g_variant_builder_clear (&formats);
  g_variant_builder_clear (&cpus);
  return NULL;
}

GVariant *
qf_daemon_open_trace (QfCaller     *caller,
                      GUnixFDList  *fds,
                      GError      **error)
{
  QfTracefsConfig config = { .owner_pid = qf_caller_pid (caller) };
  QfTracefsInstance *instance;
  QfTraceFds tfds;
  GVariant *reply;

  if (!may_open (caller, error))
    return NULL;
  if (sysconf (_SC_NPROCESSORS_CONF) > QF_DAEMON_TRACE_MAX_CPUS)
    {
      g_set_error (error, QF_DAEMON_ERROR, QF_DAEMON_ERROR_UNSUPPORTED,
                   _("This PC has more than %d CPUs, more trace readers than one message can "
                     "carry: trace as root"), QF_DAEMON_TRACE_MAX_CPUS);
      return NULL;
    }
  instance = qf_tracefs_instance_open (&config, &tfds, error);
  if (instance == NULL)
    return NULL;
  n_traces++;
  reply = reply_variant (qf_tracefs_instance_info (instance), &tfds, fds, error);
  /* the list holds copies; the caller's are the only ones left once the reply is sent */
  qf_trace_fds_close (&tfds);
  if (reply == NULL)
    {
      remove_instance (caller, instance, NULL);
      return NULL;
    }
  g_message ("trace instance %s for pid %d (uid %u)", qf_tracefs_instance_info (instance)->instance,
             (int) qf_caller_pid (caller), (guint) qf_caller_uid (caller));
  qf_caller_hold (caller, &trace_class, instance);
  return reply;
}

gboolean
qf_daemon_close_trace (QfCaller  *caller,
                       GError   **error)
{
  QfTracefsInstance *instance = qf_caller_take_held (caller, &trace_class);

  if (instance == NULL)
    {
      g_set_error (error, QF_DAEMON_ERROR, QF_DAEMON_ERROR_FAILED,
                   _("Process %d holds no trace instance"), (int) qf_caller_pid (caller));
      return FALSE;
    }
  return remove_instance (caller, instance, error);
}
