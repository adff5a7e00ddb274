/* qf-qualifyd.c — calls to qualifyd on the system bus (src/core); see qf-qualifyd.h.
 *
 * The daemon's refusals arrive as D-Bus error names (qf-qualifyd-protocol.h); they are turned
 * here into messages in the user's language with the fix, the daemon's own account (English, as
 * its journal has it) following as a detail only where it adds a fact. */
#include "config.h"

#include <gio/gio.h>
#include <gio/gunixfdlist.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "qf-i18n.h"
#include "qf-qualifyd-protocol.h"
#include "qf-qualifyd.h"
#include "qf-rttime.h"
#include "qf-text.h"

/* A person may be typing an administrator's password in polkit's dialog. */
#define INTERACTIVE_TIMEOUT_MS (5 * 60 * 1000)
#define QUICK_TIMEOUT_MS       5000

G_DEFINE_QUARK (qf-qualifyd-error-quark, qf_qualifyd_error)

/* The user's login name as a word of the adduser command the messages give: quoted when it
 * needs to be, so the command pastes as shown. */
static char *
user_name (void)
{
  return qf_text_shell_word (g_get_user_name ());
}

/* The user's explanation of a failed call; consumes `remote`. */
static void
set_call_error (GError    **error,
                GError     *remote,
                const char *what)
{
  g_autofree char *name = g_dbus_error_get_remote_error (remote);
  g_autofree char *user = user_name ();

  g_dbus_error_strip_remote_error (remote);
  if (g_error_matches (remote, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN) ||
      g_error_matches (remote, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER) ||
      g_error_matches (remote, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_SERVICE_NOT_FOUND) ||
      g_error_matches (remote, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD))
    g_set_error (error, QF_QUALIFYD_ERROR, QF_QUALIFYD_ERROR_NOT_AVAILABLE,
                 _("Qualify’s system service qualifyd is not installed on this PC (%s). It comes "
                   "with the qualify-cli package; or run the test as root."),
                 remote->message);
  else if (g_strcmp0 (name, QF_QUALIFYD_DBUS_ERROR_NOT_AUTHORIZED) == 0)
    g_set_error (error, QF_QUALIFYD_ERROR, QF_QUALIFYD_ERROR_NOT_AUTHORIZED,
                 _("Qualify’s system service qualifyd refused: user %s is neither root nor a "
                   "member of the group qualify, and no administrator allowed it at this PC’s "
                   "desktop (over SSH or in a script nobody can be asked). Fix: sudo adduser %s "
                   "qualify (it counts at once, no new login needed), or run as root."),
                 user, user);
  else if (g_strcmp0 (name, QF_QUALIFYD_DBUS_ERROR_RTTIME_NOT_SET) == 0)
    g_set_error (error, QF_QUALIFYD_ERROR, QF_QUALIFYD_ERROR_REFUSED,
                 _("qualifyd refused %s: this process has no RLIMIT_RTTIME bound (%s)"),
                 what, remote->message);
  else if (g_strcmp0 (name, QF_QUALIFYD_DBUS_ERROR_NOT_YOUR_THREAD) == 0 ||
           g_strcmp0 (name, QF_QUALIFYD_DBUS_ERROR_INVALID_PRIORITY) == 0 ||
           g_strcmp0 (name, QF_QUALIFYD_DBUS_ERROR_TOO_MANY_THREADS) == 0 ||
           g_strcmp0 (name, QF_QUALIFYD_DBUS_ERROR_UNSUPPORTED) == 0)
    g_set_error (error, QF_QUALIFYD_ERROR, QF_QUALIFYD_ERROR_REFUSED,
                 _("qualifyd refused %s: %s"), what, remote->message);
  else
    g_set_error (error, QF_QUALIFYD_ERROR, QF_QUALIFYD_ERROR_FAILED,
                 _("qualifyd could not do %s: %s"), what, remote->message);
  g_error_free (remote);
}

/* The system bus connection, kept for the process's life once made: qualifyd takes a grant back
 * when its caller leaves the bus, and a connection dropped after each call (the shared one is
 * closed with its last reference) would end every grant as soon as it was given. */
static GDBusConnection *
system_bus (GError **error)
{
  static GMutex lock;
  static GDBusConnection *kept;
  g_autoptr(GError) local_error = NULL;
  GDBusConnection *bus;

  g_mutex_lock (&lock);
  if (kept == NULL)
    kept = g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, &local_error);
  bus = kept != NULL ? g_object_ref (kept) : NULL;
  g_mutex_unlock (&lock);
  if (bus == NULL)
    g_set_error (error, QF_QUALIFYD_ERROR, QF_QUALIFYD_ERROR_NOT_AVAILABLE,
                 _("Cannot reach the system bus to ask Qualify’s system service qualifyd: %s. "
                   "Run the test as root, or on a PC whose system bus runs."),
                 local_error != NULL ? local_error->message : "?");
  return bus;
}

/* One call; interactive ones let polkit ask a person. `what` names the request in the user's
 * words for the error. */
static GVariant *
call (const char          *method,
      GVariant            *parameters,
      const GVariantType  *reply_type,
      gboolean             interactive,
      GUnixFDList        **out_fds,
      const char          *what,
      GError             **error)
{
  g_autoptr(GDBusConnection) bus = system_bus (error);
  GError *remote = NULL;
  GVariant *reply;

  if (bus == NULL)
    {
      if (parameters != NULL)
        g_variant_unref (g_variant_ref_sink (parameters));
      return NULL;
    }
  reply = g_dbus_connection_call_with_unix_fd_list_sync (
    bus, QF_QUALIFYD_BUS_NAME, QF_QUALIFYD_PATH, QF_QUALIFYD_INTERFACE, method, parameters,
    reply_type,
    interactive ? G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION : G_DBUS_CALL_FLAGS_NONE,
    interactive ? INTERACTIVE_TIMEOUT_MS : QUICK_TIMEOUT_MS, NULL, out_fds, NULL, &remote);
  if (reply == NULL)
    set_call_error (error, remote, what);
  return reply;
}

gboolean
qf_qualifyd_get_access (QfQualifydAccess *access,
                        GError          **error)
{
  g_autoptr(GVariant) reply = NULL;
  const char *word = NULL;

  *access = QF_QUALIFYD_ACCESS_NONE;
  reply = call ("GetAccess", NULL, G_VARIANT_TYPE ("(s)"), FALSE, NULL,
                _("to say what it grants"), error);
  if (reply == NULL)
    return FALSE;
  g_variant_get (reply, "(&s)", &word);
  if (g_str_equal (word, QF_QUALIFYD_WORD_ROOT))
    *access = QF_QUALIFYD_ACCESS_ROOT;
  else if (g_str_equal (word, QF_QUALIFYD_WORD_GROUP))
    *access = QF_QUALIFYD_ACCESS_GROUP;
  else if (g_str_equal (word, QF_QUALIFYD_WORD_POLKIT))
    *access = QF_QUALIFYD_ACCESS_POLKIT;
  else if (g_str_equal (word, QF_QUALIFYD_WORD_POLKIT_AUTH))
    *access = QF_QUALIFYD_ACCESS_POLKIT_AUTH;
  return TRUE;
}

/* qualifyd's RTTimeUSecMax, the bound RLIMIT_RTTIME must keep. */
static gboolean
rttime_max_us (gint64  *max_us,
               GError **error)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) value = NULL;
  g_autoptr(GDBusConnection) bus = system_bus (error);
  GError *remote = NULL;

  if (bus == NULL)
    return FALSE;
  reply = g_dbus_connection_call_sync (bus, QF_QUALIFYD_BUS_NAME, QF_QUALIFYD_PATH,
                                       "org.freedesktop.DBus.Properties", "Get",
                                       g_variant_new ("(ss)", QF_QUALIFYD_INTERFACE,
                                                      "RTTimeUSecMax"),
                                       G_VARIANT_TYPE ("(v)"), G_DBUS_CALL_FLAGS_NONE,
                                       QUICK_TIMEOUT_MS, NULL, &remote);
  if (reply == NULL)
    {
      set_call_error (error, remote, _("real-time priority"));
      return FALSE;
    }
  g_variant_get (reply, "(v)", &value);
  if (!g_variant_is_of_type (value, G_VARIANT_TYPE_INT64) || g_variant_get_int64 (value) < 1)
    {
      g_set_error (error, QF_QUALIFYD_ERROR, QF_QUALIFYD_ERROR_FAILED,
                   _("qualifyd’s RTTimeUSecMax has the unexpected type or value %s"),
                   g_variant_get_type_string (value));
      return FALSE;
    }
  *max_us = g_variant_get_int64 (value);
  return TRUE;
}

gboolean
qf_qualifyd_make_thread_realtime (pid_t     tid,
                                  int       priority,
                                  gboolean *rttime_changed,
                                  GError  **error)
{
  g_autoptr(GVariant) reply = NULL;
  g_autofree char *what = NULL;
  gint64 max_us = 0;

  *rttime_changed = FALSE;
  if (!rttime_max_us (&max_us, error) || !qf_rttime_bound (max_us, rttime_changed, error))
    return FALSE;
  what = g_strdup_printf (_("real-time priority %d"), priority);
  reply = call ("MakeThreadRealtime", g_variant_new ("(tu)", (guint64) tid, (guint32) priority),
                NULL, TRUE, NULL, what, error);
  return reply != NULL;
}

gboolean
qf_qualifyd_raise_memlock (guint64 *bytes,
                           GError **error)
{
  g_autoptr(GVariant) reply = NULL;

  reply = call ("RaiseMemlockLimit", NULL, G_VARIANT_TYPE ("(t)"), TRUE, NULL,
                _("memory locking"), error);
  if (reply == NULL)
    return FALSE;
  g_variant_get (reply, "(t)", bytes);
  return TRUE;
}

int
qf_qualifyd_open_icmp_socket (int      family,
                              GError **error)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GUnixFDList) fds = NULL;
  gint32 handle = -1;
  int fd;

  g_return_val_if_fail (family == AF_INET || family == AF_INET6, -1);

  reply = call ("OpenIcmpSocket", g_variant_new ("(u)", family == AF_INET6 ? 6u : 4u),
                G_VARIANT_TYPE ("(h)"), TRUE, &fds, _("a raw ICMP socket for ping"), error);
  if (reply == NULL)
    return -1;
  g_variant_get (reply, "(h)", &handle);
  fd = fds != NULL ? g_unix_fd_list_get (fds, handle, error) : -1;
  if (fd < 0 && fds == NULL)
    g_set_error (error, QF_QUALIFYD_ERROR, QF_QUALIFYD_ERROR_FAILED,
                 _("qualifyd answered without a socket"));
  return fd;
}

/* The descriptor of handle h in fds, or -1. */
static int
take_fd (GUnixFDList *fds,
         gint32       h)
{
  return fds != NULL && h >= 0 && h < g_unix_fd_list_get_length (fds)
           ? g_unix_fd_list_get (fds, h, NULL) : -1;
}

static void
trace_info_from (QfQualifydTrace *trace,
                 GVariant        *info)
{
  guint32 kb = 0;

  g_variant_lookup (info, QF_QUALIFYD_TRACE_INSTANCE, "s", &trace->instance);
  g_variant_lookup (info, QF_QUALIFYD_TRACE_MOUNT, "s", &trace->mount);
  g_variant_lookup (info, QF_QUALIFYD_TRACE_CLOCK, "s", &trace->clock);
  if (g_variant_lookup (info, QF_QUALIFYD_TRACE_BUFFER_KB, "u", &kb))
    trace->buffer_kb = kb;
  g_variant_lookup (info, QF_QUALIFYD_TRACE_EVENTS, "^as", &trace->events);
  g_variant_lookup (info, QF_QUALIFYD_TRACE_EVENTS_MISSING, "^as", &trace->events_missing);
  g_variant_lookup (info, QF_QUALIFYD_TRACE_TRACERS, "^as", &trace->tracers);
}

gboolean
qf_qualifyd_open_trace (QfQualifydTrace *trace,
                        GError         **error)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) info = NULL;
  g_autoptr(GVariant) formats = NULL;
  g_autoptr(GVariant) cpus = NULL;
  g_autoptr(GUnixFDList) fds = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GVariantIter iter;
  const char *event;
  gint32 marker = -1, header = -1, h;
  guint i = 0;

  memset (trace, 0, sizeof *trace);
  trace->marker_fd = trace->header_page_fd = -1;
  reply = call ("OpenTrace", NULL, G_VARIANT_TYPE ("(a{sv}hha{sh}ah)"), TRUE, &fds,
                _("the kernel’s trace"), error);
  if (reply == NULL)
    return FALSE;
  g_variant_get (reply, "(@a{sv}hh@a{sh}@ah)", &info, &marker, &header, &formats, &cpus);
  trace_info_from (trace, info);
  trace->marker_fd = take_fd (fds, marker);
  trace->header_page_fd = take_fd (fds, header);
  trace->format_fds = g_new (int, g_variant_n_children (formats) + 1);
  g_variant_iter_init (&iter, formats);
  while (g_variant_iter_next (&iter, "{&sh}", &event, &h))
    {
      g_ptr_array_add (names, g_strdup (event));
      trace->format_fds[i++] = take_fd (fds, h);
    }
  g_ptr_array_add (names, NULL);
  trace->format_events = (GStrv) g_ptr_array_steal (names, NULL);
  trace->n_cpus = (guint) g_variant_n_children (cpus);
  trace->cpu_fds = g_new (int, MAX (trace->n_cpus, 1));
  for (guint cpu = 0; cpu < trace->n_cpus; cpu++)
    {
      g_variant_get_child (cpus, cpu, "h", &h);
      trace->cpu_fds[cpu] = take_fd (fds, h);
    }
  if (trace->marker_fd < 0 || trace->header_page_fd < 0 || trace->instance == NULL)
    {
      g_set_error (error, QF_QUALIFYD_ERROR, QF_QUALIFYD_ERROR_FAILED,
                   _("qualifyd answered without the trace’s descriptors"));
      qf_qualifyd_close_trace (NULL);
      qf_qualifyd_trace_clear (trace);
      return FALSE;
    }
  return TRUE;
}

static void
close_fd (int *fd)
{
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
}

void
qf_qualifyd_trace_clear (QfQualifydTrace *trace)
{
  if (trace == NULL)
    return;
  close_fd (&trace->marker_fd);
  close_fd (&trace->header_page_fd);
  for (guint i = 0; trace->format_events != NULL && trace->format_events[i] != NULL; i++)
    close_fd (&trace->format_fds[i]);
  for (guint cpu = 0; cpu < trace->n_cpus; cpu++)
    close_fd (&trace->cpu_fds[cpu]);
  g_free (trace->instance);
  g_free (trace->mount);
  g_free (trace->clock);
  g_strfreev (trace->events);
  g_strfreev (trace->events_missing);
  g_strfreev (trace->tracers);
  g_strfreev (trace->format_events);
  g_free (trace->format_fds);
  g_free (trace->cpu_fds);
  memset (trace, 0, sizeof *trace);
  trace->marker_fd = trace->header_page_fd = -1;
}

gboolean
qf_qualifyd_close_trace (GError **error)
{
  g_autoptr(GVariant) reply = NULL;

  reply = call ("CloseTrace", NULL, NULL, FALSE, NULL, _("removing the trace instance"), error);
  return reply != NULL;
}
