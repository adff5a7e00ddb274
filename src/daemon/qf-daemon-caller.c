/* qf-daemon-caller.c — callers of qualifyd and what they hold (src/daemon); see
 * qf-daemon-caller.h. */
#include "config.h"

#include "qf-daemon-caller.h"
#include "qf-daemon-error.h"
#include "qf-daemon-proc.h"
#include "qf-i18n.h"

#define BUS_TIMEOUT_MS 5000

typedef struct
{
  const QfHoldClass *klass;
  gpointer           resource;
} Hold;

struct QfCaller
{
  gint        ref_count;
  QfCallers  *callers;        /* NULL once the caller left the bus */
  char       *name;
  uid_t       uid;
  pid_t       pid;
  guint64     start_time;
  guint       watch_id;
  GHashTable *polkit;         /* action ids polkit authorised */
  GArray     *holds;          /* Hold */
};

struct QfCallers
{
  GDBusConnection *bus;
  GHashTable      *by_name;   /* unique name → QfCaller (owned) */
};

QfCaller *
qf_caller_ref (QfCaller *caller)
{
  g_atomic_int_inc (&caller->ref_count);
  return caller;
}

void
qf_caller_unref (QfCaller *caller)
{
  if (caller == NULL || !g_atomic_int_dec_and_test (&caller->ref_count))
    return;
  g_assert (caller->holds->len == 0);
  g_hash_table_unref (caller->polkit);
  g_array_unref (caller->holds);
  g_free (caller->name);
  g_free (caller);
}

/* Drops what ended by itself; with release_all, gives everything back. */
static void
prune_holds (QfCaller *caller,
             gboolean  release_all)
{
  for (guint i = caller->holds->len; i > 0; i--)
    {
      Hold hold = g_array_index (caller->holds, Hold, i - 1);
      gboolean held = hold.klass->still_held (caller, hold.resource);

      if (held && !release_all)
        continue;
      g_array_remove_index (caller->holds, i - 1);
      if (held)
        g_message ("%s (pid %d) left the bus: releasing a %s", caller->name, (int) caller->pid,
                   hold.klass->name);
      /* release also frees a resource that ended by itself */
      hold.klass->release (caller, hold.resource);
    }
}

static void
on_vanished (GDBusConnection *bus,
             const char      *name,
             gpointer         user_data)
{
  QfCallers *callers = user_data;
  QfCaller *caller = g_hash_table_lookup (callers->by_name, name);

  if (caller == NULL)
    return;
  g_bus_unwatch_name (caller->watch_id);
  caller->watch_id = 0;
  caller->callers = NULL;
  prune_holds (caller, TRUE);
  g_hash_table_remove (callers->by_name, name);
}

QfCallers *
qf_callers_new (GDBusConnection *bus)
{
  QfCallers *callers = g_new0 (QfCallers, 1);

  callers->bus = g_object_ref (bus);
  callers->by_name = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                            (GDestroyNotify) qf_caller_unref);
  return callers;
}

void
qf_callers_free (QfCallers *callers)
{
  GHashTableIter iter;
  gpointer value;

  if (callers == NULL)
    return;
  g_hash_table_iter_init (&iter, callers->by_name);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      QfCaller *caller = value;

      /* A daemon that stops (an upgrade, shutdown) leaves what it granted to the kernel's own
       * bounds (RLIMIT_RTTIME, SCHED_RESET_ON_FORK): demoting a measurement in the middle
       * would falsify it without its process knowing. */
      if (caller->watch_id != 0)
        g_bus_unwatch_name (caller->watch_id);
      caller->callers = NULL;
      for (guint i = 0; i < caller->holds->len; i++)
        g_free (g_array_index (caller->holds, Hold, i).resource);
      g_array_set_size (caller->holds, 0);
    }
  g_hash_table_unref (callers->by_name);
  g_object_unref (callers->bus);
  g_free (callers);
}

/* The uid and pid the bus daemon recorded for `sender`. */
static gboolean
bus_credentials (GDBusConnection *bus,
                 const char      *sender,
                 guint32         *uid,
                 guint32         *pid,
                 GError         **error)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) creds = NULL;

  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "GetConnectionCredentials",
                                       g_variant_new ("(s)", sender), G_VARIANT_TYPE ("(a{sv})"),
                                       G_DBUS_CALL_FLAGS_NONE, BUS_TIMEOUT_MS, NULL, error);
  if (reply == NULL)
    return FALSE;
  creds = g_variant_get_child_value (reply, 0);
  if (!g_variant_lookup (creds, "UnixUserID", "u", uid) ||
      !g_variant_lookup (creds, "ProcessID", "u", pid) || *pid == 0)
    {
      g_set_error (error, QF_DAEMON_ERROR, QF_DAEMON_ERROR_FAILED,
                   _("The bus does not know the user and process of %s"), sender);
      return FALSE;
    }
  return TRUE;
}

QfCaller *
qf_callers_lookup (QfCallers  *callers,
                   const char *sender,
                   GError    **error)
{
  QfCaller *caller = g_hash_table_lookup (callers->by_name, sender);
  guint32 uid = 0, pid = 0;

  if (caller != NULL)
    return caller;
  if (!bus_credentials (callers->bus, sender, &uid, &pid, error))
    return NULL;

  caller = g_new0 (QfCaller, 1);
  caller->ref_count = 1;
  caller->callers = callers;
  caller->name = g_strdup (sender);
  caller->uid = (uid_t) uid;
  caller->pid = (pid_t) pid;
  caller->polkit = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  caller->holds = g_array_new (FALSE, FALSE, sizeof (Hold));
  if (!qf_daemon_proc_start_time (caller->pid, 0, &caller->start_time))
    {
      g_set_error (error, QF_DAEMON_ERROR, QF_DAEMON_ERROR_FAILED,
                   _("Process %d of %s has already ended"), (int) pid, sender);
      qf_caller_unref (caller);
      return NULL;
    }
  g_hash_table_insert (callers->by_name, caller->name, caller);
  /* Called at once (from the main loop) if the name is already gone. */
  caller->watch_id = g_bus_watch_name_on_connection (callers->bus, sender,
                                                     G_BUS_NAME_WATCHER_FLAGS_NONE, NULL,
                                                     on_vanished, callers, NULL);
  return caller;
}

gboolean
qf_callers_hold_anything (QfCallers *callers)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, callers->by_name);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      QfCaller *caller = value;

      prune_holds (caller, FALSE);
      if (caller->holds->len > 0)
        return TRUE;
    }
  return FALSE;
}

const char *
qf_caller_name (QfCaller *caller)
{
  return caller->name;
}

uid_t
qf_caller_uid (QfCaller *caller)
{
  return caller->uid;
}

pid_t
qf_caller_pid (QfCaller *caller)
{
  return caller->pid;
}

gboolean
qf_caller_is_current (QfCaller *caller)
{
  guint64 start_time;

  return caller->callers != NULL &&
         qf_daemon_proc_start_time (caller->pid, 0, &start_time) &&
         start_time == caller->start_time;
}

gboolean
qf_caller_has_polkit (QfCaller   *caller,
                      const char *action)
{
  return g_hash_table_contains (caller->polkit, action);
}

void
qf_caller_set_polkit (QfCaller   *caller,
                      const char *action)
{
  g_hash_table_add (caller->polkit, g_strdup (action));
}

void
qf_caller_hold (QfCaller          *caller,
                const QfHoldClass *klass,
                gpointer           resource)
{
  Hold hold = { klass, resource };

  if (caller->callers == NULL)
    {
      klass->release (caller, resource);
      return;
    }
  g_array_append_val (caller->holds, hold);
}

gpointer
qf_caller_take_held (QfCaller          *caller,
                     const QfHoldClass *klass)
{
  for (guint i = 0; i < caller->holds->len; i++)
    {
      Hold hold = g_array_index (caller->holds, Hold, i);

      if (hold.klass == klass)
        {
          g_array_remove_index (caller->holds, i);
          return hold.resource;
        }
    }
  return NULL;
}

guint
qf_caller_count_held (QfCaller          *caller,
                      const QfHoldClass *klass)
{
  guint n = 0;

  prune_holds (caller, FALSE);
  for (guint i = 0; i < caller->holds->len; i++)
    if (g_array_index (caller->holds, Hold, i).klass == klass)
      n++;
  return n;
}
