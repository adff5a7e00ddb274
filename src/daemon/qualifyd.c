/* qualifyd.c — the qualifyd system service: real-time priority, memory locking, raw ICMP
 * sockets and kernel-trace instances for the measurements of authorised users (src/daemon;
 * docs/privileges.md).
 *
 * Owns io.github.qualify.Qualifyd on the system bus (D-Bus activated; systemd's
 * qualifyd.service, Type=dbus) and serves io.github.qualify.Qualifyd1 (qf-qualifyd-protocol.h).
 * For every call: who is calling comes from the bus (qf-daemon-caller), whether they may from
 * root, the group qualify or polkit (qf-daemon-auth), and the grant itself is checked and made
 * by qf-daemon-rt, qf-daemon-icmp or qf-daemon-trace. Every grant and refusal is logged (the journal, under
 * systemd). Exits after --idle-timeout seconds without calls while nobody holds a real-time
 * thread or a trace instance; the bus starts it again on the next call.
 *
 * Uses src/core/common (the protocol's names, translations) and of the engine only qf-tracefs
 * (a library of its own: the trace instance); no GTK, no libnm, no measuring engine. */
#include "config.h"

#include <gio/gio.h>
#include <gio/gunixfdlist.h>
#include <glib-unix.h>
#include <stdlib.h>
#include <unistd.h>

#include "qf-daemon-auth.h"
#include "qf-daemon-caller.h"
#include "qf-daemon-error.h"
#include "qf-daemon-icmp.h"
#include "qf-daemon-rt.h"
#include "qf-daemon-trace.h"
#include "qf-env.h"
#include "qf-i18n.h"
#include "qf-paths.h"
#include "qf-qualifyd-protocol.h"

#define DEFAULT_IDLE_TIMEOUT_S 30
#define IDLE_CHECK_S           5

static const char introspection_xml[] =
  "<node>"
  "  <interface name='" QF_QUALIFYD_INTERFACE "'>"
  "    <method name='MakeThreadRealtime'>"
  "      <arg type='t' name='tid' direction='in'/>"
  "      <arg type='u' name='priority' direction='in'/>"
  "    </method>"
  "    <method name='RaiseMemlockLimit'>"
  "      <arg type='t' name='bytes' direction='out'/>"
  "    </method>"
  "    <method name='OpenIcmpSocket'>"
  "      <arg type='u' name='ip_version' direction='in'/>"
  "      <arg type='h' name='fd' direction='out'/>"
  "    </method>"
  "    <method name='OpenTrace'>"
  "      <arg type='a{sv}' name='info' direction='out'/>"
  "      <arg type='h' name='marker' direction='out'/>"
  "      <arg type='h' name='header_page' direction='out'/>"
  "      <arg type='a{sh}' name='formats' direction='out'/>"
  "      <arg type='ah' name='cpus' direction='out'/>"
  "    </method>"
  "    <method name='CloseTrace'/>"
  "    <method name='GetAccess'>"
  "      <arg type='s' name='access' direction='out'/>"
  "    </method>"
  "    <method name='GetTraceAccess'>"
  "      <arg type='s' name='access' direction='out'/>"
  "    </method>"
  "    <property name='MaxRealtimePriority' type='i' access='read'/>"
  "    <property name='RTTimeUSecMax' type='x' access='read'/>"
  "    <property name='MemlockBytes' type='t' access='read'/>"
  "    <property name='Version' type='s' access='read'/>"
  "  </interface>"
  "</node>";

typedef struct
{
  GMainLoop       *loop;
  GDBusConnection *bus;
  QfCallers       *callers;
  guint            registration_id;
  guint            pending;
  gint64           last_call_us;
  gint             idle_timeout_s;
  int              exit_status;
} Daemon;

typedef struct
{
  Daemon                *daemon;
  GDBusMethodInvocation *invocation;
  QfCaller              *caller;
} Call;

static void
call_free (Call *call)
{
  g_object_unref (call->invocation);
  qf_caller_unref (call->caller);
  g_free (call);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Call, call_free)

static void
return_error (Call        *call,
              const char  *what,
              GError      *error)
{
  g_message ("%s for %s (uid %u, pid %d) refused: %s", what, qf_caller_name (call->caller),
             (guint) qf_caller_uid (call->caller), (int) qf_caller_pid (call->caller),
             error->message);
  g_dbus_method_invocation_return_gerror (call->invocation, error);
}

static void
make_thread_realtime (Call     *call,
                      GVariant *parameters)
{
  g_autoptr(GError) error = NULL;
  guint64 tid = 0;
  guint32 priority = 0;

  g_variant_get (parameters, "(tu)", &tid, &priority);
  if (!qf_daemon_make_thread_realtime (call->caller, tid, priority, &error))
    {
      return_error (call, "MakeThreadRealtime", error);
      return;
    }
  g_message ("thread %" G_GUINT64_FORMAT " of pid %d (uid %u) is SCHED_FIFO %u", tid,
             (int) qf_caller_pid (call->caller), (guint) qf_caller_uid (call->caller), priority);
  g_dbus_method_invocation_return_value (call->invocation, NULL);
}

static void
raise_memlock (Call     *call,
               GVariant *parameters)
{
  g_autoptr(GError) error = NULL;
  guint64 bytes = 0;

  if (!qf_daemon_raise_memlock (call->caller, &bytes, &error))
    {
      return_error (call, "RaiseMemlockLimit", error);
      return;
    }
  g_message ("RLIMIT_MEMLOCK of pid %d (uid %u) is %" G_GUINT64_FORMAT " bytes",
             (int) qf_caller_pid (call->caller), (guint) qf_caller_uid (call->caller), bytes);
  g_dbus_method_invocation_return_value (call->invocation, g_variant_new ("(t)", bytes));
}

static void
open_icmp_socket (Call     *call,
                  GVariant *parameters)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GUnixFDList) fds = g_unix_fd_list_new ();
  guint32 version = 0;
  int fd;

  g_variant_get (parameters, "(u)", &version);
  fd = qf_daemon_open_icmp_socket (version, &error);
  if (fd < 0 || g_unix_fd_list_append (fds, fd, &error) < 0)
    {
      if (fd >= 0)
        close (fd);
      return_error (call, "OpenIcmpSocket", error);
      return;
    }
  close (fd);
  g_message ("raw ICMPv%u socket for pid %d (uid %u)", version,
             (int) qf_caller_pid (call->caller), (guint) qf_caller_uid (call->caller));
  g_dbus_method_invocation_return_value_with_unix_fd_list (call->invocation,
                                                           g_variant_new ("(h)", 0), fds);
}

static void
open_trace (Call     *call,
            GVariant *parameters)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GUnixFDList) fds = g_unix_fd_list_new ();
  GVariant *reply = qf_daemon_open_trace (call->caller, fds, &error);

  if (reply == NULL)
    {
      return_error (call, "OpenTrace", error);
      return;
    }
  g_dbus_method_invocation_return_value_with_unix_fd_list (call->invocation, reply, fds);
}

static void
close_trace (Call     *call,
             GVariant *parameters)
{
  g_autoptr(GError) error = NULL;

  if (!qf_daemon_close_trace (call->caller, &error))
    {
      return_error (call, "CloseTrace", error);
      return;
    }
  g_dbus_method_invocation_return_value (call->invocation, NULL);
}

/* Each method and the polkit action that authorises it. Tracing has an action of its own: what
 * it shows (every process's scheduling, every interrupt) is more than measuring needs. A method
 * without a function (GetAccess, GetTraceAccess) answers with the access itself and never makes
 * polkit ask anyone. */
typedef void (*MethodFunc) (Call     *call,
                            GVariant *parameters);

static const struct
{
  const char *name;
  const char *action;
  MethodFunc  run;
} methods[] = {
  { "MakeThreadRealtime", QF_QUALIFYD_ACTION_MEASURE, make_thread_realtime },
  { "RaiseMemlockLimit", QF_QUALIFYD_ACTION_MEASURE, raise_memlock },
  { "OpenIcmpSocket", QF_QUALIFYD_ACTION_MEASURE, open_icmp_socket },
  { "OpenTrace", QF_QUALIFYD_ACTION_TRACE, open_trace },
  { "CloseTrace", QF_QUALIFYD_ACTION_TRACE, close_trace },
  { "GetAccess", QF_QUALIFYD_ACTION_MEASURE, NULL },
  { "GetTraceAccess", QF_QUALIFYD_ACTION_TRACE, NULL },
};

static guint
method_index (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
    if (g_str_equal (methods[i].name, name))
      return i;
  return G_N_ELEMENTS (methods);
}

static void
on_authorized (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(Call) call = user_data;
  const char *method = g_dbus_method_invocation_get_method_name (call->invocation);
  GVariant *parameters = g_dbus_method_invocation_get_parameters (call->invocation);
  g_autofree char *why = NULL;
  QfAccess access = qf_daemon_authorize_finish (result, &why);
  guint i = method_index (method);

  call->daemon->pending--;
  call->daemon->last_call_us = g_get_monotonic_time ();

  g_assert (i < G_N_ELEMENTS (methods));
  if (methods[i].run == NULL)
    {
      g_dbus_method_invocation_return_value (call->invocation,
                                             g_variant_new ("(s)", qf_access_to_string (access)));
      return;
    }
  if (access < QF_ACCESS_POLKIT)
    {
      g_autoptr(GError) error = NULL;

      g_set_error (&error, QF_DAEMON_ERROR, QF_DAEMON_ERROR_NOT_AUTHORIZED,
                   _("User %u is neither root nor a member of the group %s, and polkit did not "
                     "authorise %s (%s)"),
                   (guint) qf_caller_uid (call->caller), QF_QUALIFYD_GROUP,
                   methods[i].action, why ? why : "");
      return_error (call, method, error);
      return;
    }
  methods[i].run (call, parameters);
}

static void
handle_method_call (GDBusConnection       *bus,
                    const char            *sender,
                    const char            *object_path,
                    const char            *interface_name,
                    const char            *method_name,
                    GVariant              *parameters,
                    GDBusMethodInvocation *invocation,
                    gpointer               user_data)
{
  Daemon *daemon = user_data;
  g_autoptr(GError) error = NULL;
  GDBusMessage *message = g_dbus_method_invocation_get_message (invocation);
  guint i = method_index (method_name);
  QfCaller *caller;
  gboolean interactive;
  Call *call;

  daemon->last_call_us = g_get_monotonic_time ();
  if (i == G_N_ELEMENTS (methods))
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR,
                                             G_DBUS_ERROR_UNKNOWN_METHOD, "No method %s",
                                             method_name);
      return;
    }
  caller = qf_callers_lookup (daemon->callers, sender, &error);
  if (caller == NULL)
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  /* Only a call that allows it may make polkit ask a person; GetAccess never asks. */
  interactive = methods[i].run != NULL &&
                (g_dbus_message_get_flags (message) &
                 G_DBUS_MESSAGE_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION) != 0;
  call = g_new0 (Call, 1);
  call->daemon = daemon;
  call->invocation = g_object_ref (invocation);
  call->caller = qf_caller_ref (caller);
  daemon->pending++;
  qf_daemon_authorize (bus, caller, methods[i].action, interactive,
                       on_authorized, call);
}

static GVariant *
handle_get_property (GDBusConnection  *bus,
                     const char       *sender,
                     const char       *object_path,
                     const char       *interface_name,
                     const char       *property_name,
                     GError          **error,
                     gpointer          user_data)
{
  Daemon *daemon = user_data;

  daemon->last_call_us = g_get_monotonic_time ();
  if (g_str_equal (property_name, "MaxRealtimePriority"))
    return g_variant_new_int32 (QF_DAEMON_MAX_PRIORITY);
  if (g_str_equal (property_name, "RTTimeUSecMax"))
    return g_variant_new_int64 (QF_DAEMON_RTTIME_MAX_US);
  if (g_str_equal (property_name, "MemlockBytes"))
    return g_variant_new_uint64 (qf_daemon_memlock_bytes ());
  if (g_str_equal (property_name, "Version"))
    return g_variant_new_string (PACKAGE_VERSION);
  g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_PROPERTY, "No property %s",
               property_name);
  return NULL;
}

static const GDBusInterfaceVTable vtable = { handle_method_call, handle_get_property, NULL, { 0 } };

static void
on_bus_acquired (GDBusConnection *bus,
                 const char      *name,
                 gpointer         user_data)
{
  Daemon *daemon = user_data;
  g_autoptr(GDBusNodeInfo) info = g_dbus_node_info_new_for_xml (introspection_xml, NULL);
  g_autoptr(GError) error = NULL;

  daemon->bus = g_object_ref (bus);
  daemon->callers = qf_callers_new (bus);
  daemon->registration_id = g_dbus_connection_register_object (bus, QF_QUALIFYD_PATH,
                                                               info->interfaces[0], &vtable,
                                                               daemon, NULL, &error);
  if (daemon->registration_id == 0)
    {
      g_warning ("Cannot export %s: %s", QF_QUALIFYD_PATH, error->message);
      daemon->exit_status = EXIT_FAILURE;
      g_main_loop_quit (daemon->loop);
    }
}

static void
on_name_lost (GDBusConnection *bus,
              const char      *name,
              gpointer         user_data)
{
  Daemon *daemon = user_data;

  g_warning ("Lost or could not own the name %s on the system bus (is another qualifyd "
             "running, or does the bus policy not let root own it?)", name);
  daemon->exit_status = EXIT_FAILURE;
  g_main_loop_quit (daemon->loop);
}

static gboolean
on_idle_check (gpointer user_data)
{
  Daemon *daemon = user_data;
  gint64 idle_us = g_get_monotonic_time () - daemon->last_call_us;

  if (daemon->idle_timeout_s > 0 && daemon->pending == 0 &&
      idle_us >= (gint64) daemon->idle_timeout_s * G_USEC_PER_SEC &&
      (daemon->callers == NULL || !qf_callers_hold_anything (daemon->callers)))
    {
      g_message ("idle for %d s: exiting", daemon->idle_timeout_s);
      g_main_loop_quit (daemon->loop);
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
on_signal (gpointer user_data)
{
  Daemon *daemon = user_data;

  g_main_loop_quit (daemon->loop);
  return G_SOURCE_CONTINUE;
}

int
main (int    argc,
      char **argv)
{
  Daemon daemon = { 0 };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  gboolean version = FALSE;
  guint owner_id;
  const GOptionEntry entries[] = {
    { "idle-timeout", 0, 0, G_OPTION_ARG_INT, &daemon.idle_timeout_s,
      N_("Exit after this many seconds without calls while nobody holds a grant (0: never)"),
      N_("SECONDS") },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, N_("Print the version and exit"), NULL },
    { NULL }
  };

  qf_env_init ();
  qf_i18n_init ();
  daemon.idle_timeout_s = DEFAULT_IDLE_TIMEOUT_S;
  context = g_option_context_new (NULL);
  g_option_context_set_summary (context,
                                _("Qualify’s system service: real-time priority, memory locking, "
                                  "raw ICMP sockets and kernel-trace instances for authorised "
                                  "users. Started by the system bus; see docs/privileges.md."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("qualifyd: %s\n", error->message);
      return 2;
    }
  if (version)
    {
      g_print ("qualifyd %s\n", PACKAGE_VERSION);
      return 0;
    }
  if (daemon.idle_timeout_s < 0)
    daemon.idle_timeout_s = 0;

  daemon.loop = g_main_loop_new (NULL, FALSE);
  daemon.last_call_us = g_get_monotonic_time ();
  owner_id = g_bus_own_name (G_BUS_TYPE_SYSTEM, QF_QUALIFYD_BUS_NAME, G_BUS_NAME_OWNER_FLAGS_NONE,
                             on_bus_acquired, NULL, on_name_lost, &daemon, NULL);
  g_timeout_add_seconds (IDLE_CHECK_S, on_idle_check, &daemon);
  g_unix_signal_add (SIGTERM, on_signal, &daemon);
  g_unix_signal_add (SIGINT, on_signal, &daemon);

  g_main_loop_run (daemon.loop);

  g_bus_unown_name (owner_id);
  if (daemon.registration_id != 0)
    g_dbus_connection_unregister_object (daemon.bus, daemon.registration_id);
  qf_callers_free (daemon.callers);
  g_clear_object (&daemon.bus);
  g_main_loop_unref (daemon.loop);
  return daemon.exit_status;
}
