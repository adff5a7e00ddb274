/* qf-rtkit.c — MakeThreadRealtime through org.freedesktop.RealtimeKit1 (src/core); see
 * qf-rtkit.h.
 *
 * rtkit refuses a process whose RLIMIT_RTTIME hard limit is unset or above its RTTimeUSecMax
 * (its watchdog relies on the kernel sending SIGKILL to a runaway real-time thread), and grants
 * at most MaxRealtimePriority; both are read from rtkit's own properties before the call. */
#include "config.h"

#include <errno.h>
#include <gio/gio.h>
#include <sys/resource.h>

#include "qf-i18n.h"
#include "qf-rtkit.h"
#include "qf-rttime.h"

#define RTKIT_NAME      "org.freedesktop.RealtimeKit1"
#define RTKIT_PATH      "/org/freedesktop/RealtimeKit1"
#define RTKIT_INTERFACE "org.freedesktop.RealtimeKit1"
#define CALL_TIMEOUT_MS 5000

struct QfRtkit
{
  GMutex        lock;
  struct rlimit saved_rttime;
  gboolean      have_saved;
  gboolean      rttime_changed;
  gboolean      asked;
  int           granted_priority;
  char         *error;
};

QfRtkit *
qf_rtkit_new (void)
{
  QfRtkit *rtkit = g_new0 (QfRtkit, 1);

  g_mutex_init (&rtkit->lock);
  rtkit->have_saved = getrlimit (RLIMIT_RTTIME, &rtkit->saved_rttime) == 0;
  return rtkit;
}

/* Puts RLIMIT_RTTIME back. An unprivileged process cannot raise a hard limit again; then the
 * lowered limit stays, which only ever matters to a real-time thread that runs 200 ms without
 * sleeping. */
void
qf_rtkit_free (QfRtkit *rtkit)
{
  if (rtkit == NULL)
    return;
  if (rtkit->rttime_changed && rtkit->have_saved)
    setrlimit (RLIMIT_RTTIME, &rtkit->saved_rttime);
  g_mutex_clear (&rtkit->lock);
  g_free (rtkit->error);
  g_free (rtkit);
}

static gboolean
get_int_property (GDBusConnection *bus,
                  const char      *name,
                  gint64          *out,
                  GError         **error)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) value = NULL;

  reply = g_dbus_connection_call_sync (bus, RTKIT_NAME, RTKIT_PATH,
                                       "org.freedesktop.DBus.Properties", "Get",
                                       g_variant_new ("(ss)", RTKIT_INTERFACE, name),
                                       G_VARIANT_TYPE ("(v)"), G_DBUS_CALL_FLAGS_NONE,
                                       CALL_TIMEOUT_MS, NULL, error);
  if (reply == NULL)
    return FALSE;
  g_variant_get (reply, "(v)", &value);
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_INT32))
    *out = g_variant_get_int32 (value);
  else if (g_variant_is_of_type (value, G_VARIANT_TYPE_INT64))
    *out = g_variant_get_int64 (value);
  else
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_SIGNATURE,
                   _("rtkit’s %s has the unexpected type %s"), name,
                   g_variant_get_type_string (value));
      return FALSE;
    }
  return TRUE;
}

gboolean
qf_rtkit_make_thread_realtime (pid_t     tid,
                               int       priority,
                               int      *granted_priority,
                               gboolean *rttime_changed,
                               GError  **error)
{
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) local_error = NULL;
  gint64 max_priority = 0, rttime_max_us = 0;

  *granted_priority = 0;
  bus = g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, &local_error);
  if (bus == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
                   _("cannot reach the system bus to ask rtkit: %s"), local_error->message);
      return FALSE;
    }
  if (!get_int_property (bus, "MaxRealtimePriority", &max_priority, &local_error) ||
      !get_int_property (bus, "RTTimeUSecMax", &rttime_max_us, &local_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("rtkit is not available: %s"), local_error->message);
      return FALSE;
    }
  if (max_priority < 1 || rttime_max_us < 1)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   _("rtkit hands out no real-time priority on this PC"));
      return FALSE;
    }
  priority = (int) MIN ((gint64) priority, max_priority);

  if (!qf_rttime_bound (rttime_max_us, rttime_changed, error))
    return FALSE;

  reply = g_dbus_connection_call_sync (bus, RTKIT_NAME, RTKIT_PATH, RTKIT_INTERFACE,
                                       "MakeThreadRealtime",
                                       g_variant_new ("(tu)", (guint64) tid, (guint32) priority),
                                       NULL, G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS, NULL,
                                       &local_error);
  if (reply == NULL)
    {
      g_dbus_error_strip_remote_error (local_error);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   _("rtkit refused real-time priority %d: %s"), priority, local_error->message);
      return FALSE;
    }
  *granted_priority = priority;
  return TRUE;
}

gboolean
qf_rtkit_acquire (pid_t    tid,
                  int      priority,
                  gpointer user_data)
{
  QfRtkit *rtkit = user_data;
  g_autoptr(GError) error = NULL;
  int granted = 0;
  gboolean changed = FALSE, ok;

  g_return_val_if_fail (rtkit != NULL, FALSE);

  g_mutex_lock (&rtkit->lock);
  rtkit->asked = TRUE;
  ok = qf_rtkit_make_thread_realtime (tid, priority, &granted, &changed, &error);
  rtkit->rttime_changed |= changed;
  if (ok)
    rtkit->granted_priority = rtkit->granted_priority ? MIN (rtkit->granted_priority, granted) : granted;
  else if (rtkit->error == NULL)
    rtkit->error = g_strdup (error->message);
  g_mutex_unlock (&rtkit->lock);
  return ok;
}

gboolean
qf_rtkit_was_asked (QfRtkit *rtkit)
{
  g_return_val_if_fail (rtkit != NULL, FALSE);
  return rtkit->asked;
}

int
qf_rtkit_granted_priority (QfRtkit *rtkit)
{
  g_return_val_if_fail (rtkit != NULL, 0);
  return rtkit->granted_priority;
}

const char *
qf_rtkit_error (QfRtkit *rtkit)
{
  g_return_val_if_fail (rtkit != NULL, NULL);
  return rtkit->error;
}
