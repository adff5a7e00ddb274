/* qf-helper.c — this machine as the helper machine (src/core). See qf-helper.h.
 *
 * The services are qf-peer-services.c; this adds what a person on the helper page needs: a
 * pairing code drawn here, the machine's name, and errors said with their fix (which program
 * holds a port, read from /proc/net and /proc/<pid>/fd; no interface up). */
#include "config.h"

#include <string.h>

#include "qf-helper-private.h"
#include "qf-i18n.h"
#include "qf-pairing.h"
#include "qf-peer-check.h"

G_DEFINE_QUARK (qf-helper-error-quark, qf_helper_error)

#define IFF_UP_FLAG 0x1

struct _QfHelper
{
  GObject         parent_instance;

  QfPeerServices *services;
  GMainContext   *context;   /* where "failed" is emitted */
  char           *code;      /* grouped; NULL without a code */
  char           *name;
  gboolean        quiet;     /* do not announce (the person turned discovery off) */
  gboolean        loopback;  /* started on a loopback address: nothing to announce */
};

G_DEFINE_FINAL_TYPE (QfHelper, qf_helper, G_TYPE_OBJECT)

enum { SIGNAL_FAILED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* ---- the machine's name -------------------------------------------------------------------- */

/* PRETTY_HOSTNAME of /etc/machine-info (systemd's hostnamectl --pretty), or NULL. */
static char *
read_pretty_hostname (void)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  if (!g_file_get_contents ("/etc/machine-info", &text, NULL, NULL))
    return NULL;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autofree char *value = NULL;

      if (!g_str_has_prefix (lines[i], "PRETTY_HOSTNAME="))
        continue;
      value = g_shell_unquote (lines[i] + strlen ("PRETTY_HOSTNAME="), NULL);
      if (value != NULL && *g_strstrip (value) != '\0' && g_utf8_validate (value, -1, NULL))
        return g_steal_pointer (&value);
    }
  return NULL;
}

/* ---- which program holds a port ------------------------------------------------------------ */

/* Adds the inode of every socket in one /proc/net table bound to port (TCP: listening). */
static void
collect_inodes (const char *table,
                guint16     port,
                gboolean    tcp,
                GPtrArray  *inodes)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  if (!g_file_get_contents (table, &text, NULL, NULL))
    return;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = g_strsplit_set (g_strstrip (lines[i]), " ", -1);
      g_autoptr(GPtrArray) words = g_ptr_array_new ();
      const char *colon;

      for (guint f = 0; fields[f] != NULL; f++)
        if (fields[f][0] != '\0')
          g_ptr_array_add (words, fields[f]);
      if (words->len < 10)
        continue;
      colon = strrchr (g_ptr_array_index (words, 1), ':');
      if (colon == NULL || g_ascii_strtoull (colon + 1, NULL, 16) != port)
        continue;
      if (tcp && g_strcmp0 (g_ptr_array_index (words, 3), "0A") != 0)
        continue;
      g_ptr_array_add (inodes, g_strdup_printf ("socket:[%s]", (char *) g_ptr_array_index (words, 9)));
    }
}

/* "iperf3 -s (process 812)" from /proc/<pid>/cmdline. */
static char *
describe_process (const char *pid)
{
  g_autofree char *path = g_build_filename ("/proc", pid, "cmdline", NULL);
  g_autofree char *cmdline = NULL;
  g_autofree char *base = NULL;
  GString *text;
  gsize len = 0;

  if (!g_file_get_contents (path, &cmdline, &len, NULL) || len == 0)
    return g_strdup_printf (_("a program (process %s)"), pid);
  base = g_path_get_basename (cmdline);
  text = g_string_new (base);
  for (gsize at = strlen (cmdline) + 1; at < len && text->len < 80; at += strlen (cmdline + at) + 1)
    g_string_append_printf (text, " %s", cmdline + at);
  g_string_append_printf (text, _(" (process %s)"), pid);
  return g_string_free (text, FALSE);
}

/* The process with a descriptor on one of the sockets, or NULL when /proc does not let us see. */
static char *
find_owner (GPtrArray *inodes)
{
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  const char *pid;

  while (proc != NULL && (pid = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *fd_path = NULL;
      g_autoptr(GDir) fds = NULL;
      const char *fd;

      if (!g_ascii_isdigit (pid[0]))
        continue;
      fd_path = g_build_filename ("/proc", pid, "fd", NULL);
      fds = g_dir_open (fd_path, 0, NULL);
      while (fds != NULL && (fd = g_dir_read_name (fds)) != NULL)
        {
          g_autofree char *link_path = g_build_filename (fd_path, fd, NULL);
          g_autofree char *target = g_file_read_link (link_path, NULL);

          for (guint i = 0; target != NULL && i < inodes->len; i++)
            if (g_str_equal (target, g_ptr_array_index (inodes, i)))
              return describe_process (pid);
        }
    }
  return NULL;
}

gboolean
_qf_helper_port_holder (guint16   port,
                        char    **owner)
{
  g_autoptr(GPtrArray) inodes = g_ptr_array_new_with_free_func (g_free);

  collect_inodes ("/proc/net/tcp", port, TRUE, inodes);
  collect_inodes ("/proc/net/tcp6", port, TRUE, inodes);
  collect_inodes ("/proc/net/udp", port, FALSE, inodes);
  collect_inodes ("/proc/net/udp6", port, FALSE, inodes);
  *owner = inodes->len > 0 ? find_owner (inodes) : NULL;
  return inodes->len > 0;
}

/* The port-in-use error for the first of the ports something holds; FALSE when none is held. */
static gboolean
set_port_in_use (const guint16  *ports,
                 guint           n_ports,
                 GError        **error)
{
  for (guint i = 0; i < n_ports; i++)
    {
      g_autofree char *owner = NULL;

      if (ports[i] == 0 || !_qf_helper_port_holder (ports[i], &owner))
        continue;
      if (owner != NULL)
        g_set_error (error, QF_HELPER_ERROR, QF_HELPER_ERROR_PORT_IN_USE,
                     _("Port %u is taken by another program on this machine: %s. Stop that program (for example a “qualify-cli serve” or an “iperf3 -s” left running here), then start the helper again."),
                     ports[i], owner);
      else
        g_set_error (error, QF_HELPER_ERROR, QF_HELPER_ERROR_PORT_IN_USE,
                     _("Port %u is taken by another program on this machine (the system does not say which to this user; “sudo ss -ltnup” does). Stop that program (for example a “qualify-cli serve” or an “iperf3 -s” left running here), then start the helper again."),
                     ports[i]);
      return TRUE;
    }
  return FALSE;
}

/* ---- interfaces ---------------------------------------------------------------------------- */

gboolean
_qf_helper_check_interfaces (const char  *sys_class_net,
                             GError     **error)
{
  g_autoptr(GDir) dir = g_dir_open (sys_class_net, 0, NULL);
  const char *name;

  /* Without sysfs nothing can be said: let the services start and the page show the rest. */
  if (dir == NULL)
    return TRUE;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *flags_path = g_build_filename (sys_class_net, name, "flags", NULL);
      g_autofree char *flags = NULL;

      if (g_str_equal (name, "lo") || !g_file_get_contents (flags_path, &flags, NULL, NULL))
        continue;
      if ((g_ascii_strtoull (flags, NULL, 16) & IFF_UP_FLAG) != 0)
        return TRUE;
    }
  g_set_error_literal (error, QF_HELPER_ERROR, QF_HELPER_ERROR_NO_INTERFACE,
                       _("No network interface is up on this machine, only loopback. Plug the network cable in (or turn the network interface on in the system's network settings), then start the helper again."));
  return FALSE;
}

/* ---- failures from the service threads ----------------------------------------------------- */

typedef struct
{
  QfHelper *self;
  char     *message;
} Failure;

static gboolean
emit_failure (gpointer data)
{
  Failure *failure = data;

  g_signal_emit (failure->self, signals[SIGNAL_FAILED], 0, failure->message);
  return G_SOURCE_REMOVE;
}

static void
failure_free (gpointer data)
{
  Failure *failure = data;

  g_object_unref (failure->self);
  g_free (failure->message);
  g_free (failure);
}

/* On a service thread: hands the message to the main context. */
static void
on_service_failed (const GError *error,
                   gpointer      user_data)
{
  QfHelper *self = user_data;
  Failure *failure = g_new0 (Failure, 1);

  failure->self = g_object_ref (self);
  failure->message = g_strdup (error->message);
  /* the main context owns failure from here: emitted there, then freed */
  g_main_context_invoke_full (self->context, G_PRIORITY_DEFAULT_IDLE, emit_failure, failure,
                              failure_free);
  /* cppcheck 2.10 does not know that the context took failure over (freed by failure_free) */
  // cppcheck-suppress memleak
}

/* ---- the object ---------------------------------------------------------------------------- */

static void
qf_helper_dispose (GObject *object)
{
  qf_helper_stop (QF_HELPER (object));
  G_OBJECT_CLASS (qf_helper_parent_class)->dispose (object);
}

static void
qf_helper_finalize (GObject *object)
{
  QfHelper *self = QF_HELPER (object);

  g_free (self->name);
  G_OBJECT_CLASS (qf_helper_parent_class)->finalize (object);
}

static void
qf_helper_class_init (QfHelperClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = qf_helper_dispose;
  object_class->finalize = qf_helper_finalize;
  signals[SIGNAL_FAILED] = g_signal_new ("failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                         0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
qf_helper_init (QfHelper *self)
{
  self->name = read_pretty_hostname ();
  if (self->name == NULL)
    self->name = g_strdup (g_get_host_name ());
}

QfHelper *
qf_helper_new (void)
{
  return g_object_new (QF_TYPE_HELPER, NULL);
}

static gboolean
is_loopback (const char *address)
{
  return address != NULL && (g_str_has_prefix (address, "127.") || g_str_equal (address, "::1"));
}

gboolean
_qf_helper_start_on_ports (QfHelper    *self,
                           gboolean     require_code,
                           const char  *bind_address,
                           guint16      latency_port,
                           guint16      bandwidth_port,
                           GError     **error)
{
  g_autoptr(GBytes) token = NULL;
  g_autofree char *code = NULL;
  g_autoptr(GError) bind_error = NULL;
  const guint16 ports[] = { latency_port, bandwidth_port };
  QfPeerServicesConfig config = {
    .bind_address = bind_address,
    .latency_port = latency_port,
    .bandwidth_port = bandwidth_port,
    .fail = on_service_failed,
    .fail_data = self,
  };

  g_return_val_if_fail (QF_IS_HELPER (self), FALSE);
  g_return_val_if_fail (self->services == NULL, FALSE);

  if (!is_loopback (bind_address) && !_qf_helper_check_interfaces ("/sys/class/net", error))
    return FALSE;
  if (require_code)
    {
      code = qf_pairing_code_new (error);
      token = code != NULL ? qf_pairing_code_to_token (code, error) : NULL;
      if (token == NULL)
        return FALSE;
      config.token = token;
    }
  /* discovery on every interface that is up; not for a test on loopback */
  self->loopback = is_loopback (bind_address);
  config.announce = !self->quiet && !self->loopback;
  config.announce_name = self->name;
  self->services = qf_peer_services_bind (&config, &bind_error);
  if (self->services == NULL)
    {
      if (!set_port_in_use (ports, G_N_ELEMENTS (ports), error))
        g_set_error (error, QF_HELPER_ERROR, QF_HELPER_ERROR_FAILED,
                     _("The helper cannot start: %s"), bind_error->message);
      return FALSE;
    }
  self->context = g_main_context_ref_thread_default ();
  self->code = g_steal_pointer (&code);
  qf_peer_services_start (self->services);
  return TRUE;
}

gboolean
qf_helper_start (QfHelper  *self,
                 gboolean   require_code,
                 GError   **error)
{
  return _qf_helper_start_on_ports (self, require_code, NULL, QF_PEER_DEFAULT_LATENCY_PORT,
                                    QF_PEER_DEFAULT_BANDWIDTH_PORT, error);
}

void
qf_helper_set_announce (QfHelper *self,
                        gboolean  announce)
{
  g_return_if_fail (QF_IS_HELPER (self));
  self->quiet = !announce;
}

gboolean
qf_helper_is_announcing (QfHelper    *self,
                         const char **why_not)
{
  const char *reason = NULL;

  g_return_val_if_fail (QF_IS_HELPER (self), FALSE);
  if (self->services == NULL)
    reason = _("the helper is stopped");
  else if (self->quiet)
    reason = _("discovery is turned off in the settings");
  else if (self->loopback)
    reason = _("the helper serves on loopback only");
  else if (!qf_peer_services_is_announcing (self->services, &reason) && reason == NULL)
    reason = _("discovery could not start");
  if (why_not != NULL)
    *why_not = reason;
  return reason == NULL;
}

void
qf_helper_stop (QfHelper *self)
{
  g_return_if_fail (QF_IS_HELPER (self));

  g_clear_pointer (&self->services, qf_peer_services_stop);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_pointer (&self->code, g_free);
}

gboolean
qf_helper_is_running (QfHelper *self)
{
  g_return_val_if_fail (QF_IS_HELPER (self), FALSE);
  return self->services != NULL;
}

const char *
qf_helper_get_code (QfHelper *self)
{
  g_return_val_if_fail (QF_IS_HELPER (self), NULL);
  return self->code;
}

const char *
qf_helper_get_name (QfHelper *self)
{
  g_return_val_if_fail (QF_IS_HELPER (self), NULL);
  return self->name;
}

guint16
qf_helper_get_latency_port (QfHelper *self)
{
  g_return_val_if_fail (QF_IS_HELPER (self), 0);
  return self->services != NULL ? qf_peer_services_get_latency_port (self->services) : 0;
}

guint16
qf_helper_get_bandwidth_port (QfHelper *self)
{
  g_return_val_if_fail (QF_IS_HELPER (self), 0);
  return self->services != NULL ? qf_peer_services_get_bandwidth_port (self->services) : 0;
}

GPtrArray *
qf_helper_list_clients (QfHelper *self)
{
  g_return_val_if_fail (QF_IS_HELPER (self), NULL);

  if (self->services == NULL)
    return g_ptr_array_new_with_free_func ((GDestroyNotify) qf_peer_client_free);
  return qf_peer_services_list_clients (self->services);
}
