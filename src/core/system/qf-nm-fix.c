/* qf-nm-fix.c — apply and undo a network audit fix through NetworkManager (src/core); see
 * qf-nm-fix.h.
 *
 * A fix is a list of property changes on the interface's connection. Apply clones the
 * connection's settings as they are at that moment (the undo copy), sets the properties on a
 * second clone, writes it with Update2 (to disk) and asks the device to Reapply it. Undo writes
 * the saved clone back the same way, so the stored settings — and the key file NetworkManager
 * writes from them — are exactly those of before. */
#include "config.h"

#include <string.h>

#include "qf-i18n.h"
#include "qf-net-audit.h"
#include "qf-nm-fix.h"
#include "qf-text.h"

G_DEFINE_QUARK (qf-nm-fix-error-quark, qf_nm_fix_error)

typedef struct
{
  char *setting;   /* "ethtool", "802-11-wireless", "ipv4", "ipv6" */
  char *key;       /* "feature-gro", "coalesce-rx-usecs", "powersave", "method" */
  char *value;     /* the new value as nmcli spells it: "off", "0", "2", "link-local" */
} Change;

struct _QfNmFix
{
  GObject             parent_instance;

  NMClient           *client;
  NMDevice           *device;
  NMRemoteConnection *remote;
  GArray             *changes;      /* Change */
  NMConnection       *previous;     /* settings before apply; NULL until applied */
  char               *description;
  char               *command;
  char               *note;
  gboolean            applied;
};

G_DEFINE_FINAL_TYPE (QfNmFix, qf_nm_fix, G_TYPE_OBJECT)

static void
change_clear (gpointer data)
{
  Change *change = data;

  g_free (change->setting);
  g_free (change->key);
  g_free (change->value);
}

static void
qf_nm_fix_dispose (GObject *object)
{
  QfNmFix *self = QF_NM_FIX (object);

  g_clear_object (&self->client);
  g_clear_object (&self->device);
  g_clear_object (&self->remote);
  g_clear_object (&self->previous);
  G_OBJECT_CLASS (qf_nm_fix_parent_class)->dispose (object);
}

static void
qf_nm_fix_finalize (GObject *object)
{
  QfNmFix *self = QF_NM_FIX (object);

  g_array_unref (self->changes);
  g_free (self->description);
  g_free (self->command);
  g_free (self->note);
  G_OBJECT_CLASS (qf_nm_fix_parent_class)->finalize (object);
}

static void
qf_nm_fix_class_init (QfNmFixClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = qf_nm_fix_dispose;
  object_class->finalize = qf_nm_fix_finalize;
}

static void
qf_nm_fix_init (QfNmFix *self)
{
  self->changes = g_array_new (FALSE, TRUE, sizeof (Change));
  g_array_set_clear_func (self->changes, change_clear);
}

static void
add_change (QfNmFix    *self,
            const char *setting,
            const char *key,
            const char *value)
{
  Change change = { g_strdup (setting), g_strdup (key), g_strdup (value) };

  g_array_append_val (self->changes, change);
}

/* ---------------------------------------------------------------- reading and setting values */

/* The properties Qualify writes itself: those the audit's NetworkManager fixes set. Any other
 * (auto-negotiate, MTU, band) is left to the nmcli command the row shows. */
static gboolean
property_held (const char *setting,
               const char *key)
{
  static const char *const held[] = {
    "802-11-wireless.powersave", "ipv4.method", "ipv6.method", "connection.autoconnect",
  };
  g_autofree char *name = g_strdup_printf ("%s.%s", setting, key);

  if (g_str_equal (setting, NM_SETTING_ETHTOOL_SETTING_NAME))
    return nm_ethtool_optname_is_feature (key) || nm_ethtool_optname_is_coalesce (key);
  for (guint i = 0; i < G_N_ELEMENTS (held); i++)
    if (g_str_equal (name, held[i]))
      return TRUE;
  return FALSE;
}

/* The value a connection has for a change's property, as nmcli spells it; NULL when unset. */
static char *
current_value (NMConnection *connection,
               const Change *change)
{
  NMSetting *setting = nm_connection_get_setting_by_name (connection, change->setting);
  GParamSpec *spec;
  g_auto(GValue) value = G_VALUE_INIT;
  gboolean b;
  guint32 u;

  if (setting == NULL)
    return NULL;
  if (NM_IS_SETTING_ETHTOOL (setting))
    {
      if (nm_ethtool_optname_is_feature (change->key)
          && nm_setting_option_get_boolean (setting, change->key, &b))
        return g_strdup (b ? "on" : "off");
      if (nm_setting_option_get_uint32 (setting, change->key, &u))
        return g_strdup_printf ("%u", u);
      return NULL;
    }
  spec = g_object_class_find_property (G_OBJECT_GET_CLASS (setting), change->key);
  if (spec == NULL)
    return NULL;
  g_value_init (&value, spec->value_type);
  g_object_get_property (G_OBJECT (setting), change->key, &value);
  if (G_VALUE_HOLDS_BOOLEAN (&value))
    return g_strdup (g_value_get_boolean (&value) ? "yes" : "no");
  if (G_VALUE_HOLDS_UINT (&value))
    return g_strdup_printf ("%u", g_value_get_uint (&value));
  if (G_VALUE_HOLDS_STRING (&value))
    return g_value_dup_string (&value);
  return NULL;
}

static void
set_property_text (NMSetting    *setting,
                   const Change *change)
{
  GParamSpec *spec = g_object_class_find_property (G_OBJECT_GET_CLASS (setting), change->key);

  g_return_if_fail (spec != NULL);
  if (spec->value_type == G_TYPE_BOOLEAN)
    g_object_set (setting, change->key, g_str_equal (change->value, "yes") || g_str_equal (change->value, "true"), NULL);
  else if (spec->value_type == G_TYPE_UINT)
    g_object_set (setting, change->key, (guint) g_ascii_strtoull (change->value, NULL, 10), NULL);
  else
    g_object_set (setting, change->key, change->value, NULL);
  /* link-local takes no fixed addresses or gateway; only the address method's own fix sets it */
  if (NM_IS_SETTING_IP_CONFIG (setting) && g_str_equal (change->key, NM_SETTING_IP_CONFIG_METHOD)
      && g_str_equal (change->value, NM_SETTING_IP4_CONFIG_METHOD_LINK_LOCAL))
    {
      nm_setting_ip_config_clear_addresses (NM_SETTING_IP_CONFIG (setting));
      g_object_set (setting, NM_SETTING_IP_CONFIG_GATEWAY, NULL, NULL);
    }
}

static void
set_value (NMConnection *connection,
           const Change *change)
{
  NMSetting *setting = nm_connection_get_setting_by_name (connection, change->setting);

  if (setting == NULL)
    {
      GType type = nm_setting_lookup_type (change->setting);

      g_return_if_fail (type != G_TYPE_INVALID);
      setting = g_object_new (type, NULL);
      nm_connection_add_setting (connection, setting);
    }
  if (NM_IS_SETTING_ETHTOOL (setting))
    {
      if (nm_ethtool_optname_is_feature (change->key))
        nm_setting_option_set_boolean (setting, change->key, g_str_equal (change->value, "on"));
      else
        nm_setting_option_set_uint32 (setting, change->key, (guint32) g_ascii_strtoull (change->value, NULL, 10));
    }
  else
    set_property_text (setting, change);
}

/* ---------------------------------------------------------------- which changes */

static void
set_not_held (GError     **error,
              const char  *check_id)
{
  g_set_error (error, QF_NM_FIX_ERROR, QF_NM_FIX_ERROR_NOT_HELD,
               _("NetworkManager cannot hold the setting of check “%s”; run the command the "
                 "audit shows instead"), check_id);
}

/* The changes are the pairs the audit row's nmcli command sets (check->nm_settings), so the
 * button makes exactly the change the row recommends. */
static gboolean
add_check_changes (QfNmFix                *self,
                   const QfNetAuditCheck  *check,
                   GError                **error)
{
  char **pairs = check->nm_settings;

  if (pairs == NULL && check->status == QF_AUDIT_OK)
    {
      g_set_error (error, QF_NM_FIX_ERROR, QF_NM_FIX_ERROR_NOTHING_TO_DO,
                   _("the audit recommends no change for check “%s”"), check->id);
      return FALSE;
    }
  for (guint i = 0; pairs != NULL && pairs[i] != NULL && pairs[i + 1] != NULL; i += 2)
    {
      const char *dot = strchr (pairs[i], '.');
      g_autofree char *setting = dot != NULL ? g_strndup (pairs[i], dot - pairs[i]) : NULL;

      if (setting == NULL || !property_held (setting, dot + 1))
        break;
      add_change (self, setting, dot + 1, pairs[i + 1]);
    }
  if (pairs == NULL || self->changes->len * 2 != g_strv_length (pairs))
    {
      set_not_held (error, check->id);
      return FALSE;
    }
  return TRUE;
}

/* Description and nmcli command; drops the changes the connection already has. */
static gboolean
describe (QfNmFix  *self,
          GError  **error)
{
  NMConnection *connection = NM_CONNECTION (self->remote);
  const char *id = nm_connection_get_id (connection);
  g_autofree char *quoted = qf_text_shell_word (id);
  g_autofree char *shown = qf_text_clean (id, -1);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GString) command = g_string_new ("nmcli connection modify ");

  g_string_append (command, quoted);
  for (guint i = 0; i < self->changes->len;)
    {
      Change *change = &g_array_index (self->changes, Change, i);
      g_autofree char *old = current_value (connection, change);

      if (g_strcmp0 (old, change->value) == 0)
        {
          g_array_remove_index (self->changes, i);
          continue;
        }
      /* TRANSLATORS: "Connection “Wired 1”: ethtool.feature-gro not set → off" */
      g_string_append_printf (text, _("%sConnection “%s”: %s.%s %s → %s"), text->len ? "\n" : "", shown,
                              change->setting, change->key, old != NULL ? old : _("not set"), change->value);
      g_string_append_printf (command, " %s.%s %s", change->setting, change->key, change->value);
      i++;
    }
  if (self->changes->len == 0)
    {
      g_set_error (error, QF_NM_FIX_ERROR, QF_NM_FIX_ERROR_NOTHING_TO_DO,
                   _("connection “%s” already has the recommended settings"), shown);
      return FALSE;
    }
  self->description = g_string_free (g_steal_pointer (&text), FALSE);
  self->command = g_string_free (g_steal_pointer (&command), FALSE);
  return TRUE;
}

QfNmFix *
qf_nm_fix_new_for_check (NMClient               *client,
                         const char             *iface,
                         const QfNetAuditCheck  *check,
                         GError                **error)
{
  g_autoptr(QfNmFix) self = NULL;
  NMDevice *device;
  NMRemoteConnection *remote;

  g_return_val_if_fail (NM_IS_CLIENT (client) && iface != NULL && check != NULL, NULL);
  if (!nm_client_get_nm_running (client))
    {
      g_set_error (error, QF_NM_FIX_ERROR, QF_NM_FIX_ERROR_NOT_RUNNING,
                   _("NetworkManager is not running, so nothing can hold this setting"));
      return NULL;
    }
  device = nm_client_get_device_by_iface (client, iface);
  remote = device != NULL ? qf_nm_device_connection (device) : NULL;
  if (remote == NULL)
    {
      g_autofree char *shown = qf_text_clean (iface, -1);

      g_set_error (error, QF_NM_FIX_ERROR, QF_NM_FIX_ERROR_NO_CONNECTION,
                   _("NetworkManager has no connection for %s; create one first"), shown);
      return NULL;
    }
  self = g_object_new (QF_TYPE_NM_FIX, NULL);
  self->client = g_object_ref (client);
  self->device = g_object_ref (device);
  self->remote = g_object_ref (remote);
  if (!add_check_changes (self, check, error) || !describe (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

QfNmFix *
qf_nm_fix_new (NMClient    *client,
               const char  *iface,
               const char  *check_id,
               GError     **error)
{
  /* facts from the client (NULL when NetworkManager is not running: new_for_check says so) */
  g_autoptr(QfNmFacts) facts = qf_nm_facts_from_client (client, iface);
  g_autoptr(GPtrArray) checks = qf_net_audit_run (&(QfNetAuditConfig) { .root = "/", .iface = iface, .nm = facts,
                                                                          .nm_asked = TRUE }, error);
  QfNetAuditCheck *check = checks != NULL && check_id != NULL ? qf_net_audit_find (checks, check_id) : NULL;

  if (checks != NULL && check == NULL)
    set_not_held (error, check_id);
  return check != NULL ? qf_nm_fix_new_for_check (client, iface, check, error) : NULL;
}

const char *
qf_nm_fix_get_description (QfNmFix *self)
{
  g_return_val_if_fail (QF_IS_NM_FIX (self), NULL);
  return self->description;
}

const char *
qf_nm_fix_get_command (QfNmFix *self)
{
  g_return_val_if_fail (QF_IS_NM_FIX (self), NULL);
  return self->command;
}

const char *
qf_nm_fix_get_connection_id (QfNmFix *self)
{
  g_return_val_if_fail (QF_IS_NM_FIX (self), NULL);
  return nm_connection_get_id (NM_CONNECTION (self->remote));
}

gboolean
qf_nm_fix_get_applied (QfNmFix *self)
{
  g_return_val_if_fail (QF_IS_NM_FIX (self), FALSE);
  return self->applied;
}

const char *
qf_nm_fix_get_note (QfNmFix *self)
{
  g_return_val_if_fail (QF_IS_NM_FIX (self), NULL);
  return self->note;
}

/* ---------------------------------------------------------------- write and reapply */

static void
activate_done (GObject      *object,
               GAsyncResult *result,
               gpointer      data)
{
  g_autoptr(GTask) task = data;
  QfNmFix *self = g_task_get_source_object (task);
  g_autoptr(NMActiveConnection) active = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *shown = NULL;

  active = nm_client_activate_connection_finish (NM_CLIENT (object), result, &error);
  shown = qf_text_clean (nm_device_get_iface (self->device), -1);
  if (active == NULL)
    /* TRANSLATORS: the second %s is NetworkManager's reason */
    self->note = g_strdup_printf (_("The connection’s settings are changed; %s takes them when "
                                    "the connection is next activated (%s)."),
                                  shown, error->message);
  else
    self->note = g_strdup_printf (_("NetworkManager cannot change these settings on a running "
                                    "link, so the connection was activated again; %s was down for "
                                    "a moment."), shown);
  g_task_return_boolean (task, TRUE);
}

/* Reapply refused (NetworkManager 1.42 reapplies no ethtool setting): activate the connection
 * again so the device takes the settings now. */
static void
reapply_done (GObject      *object,
              GAsyncResult *result,
              gpointer      data)
{
  g_autoptr(GTask) task = data;
  QfNmFix *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;

  if (nm_device_reapply_finish (NM_DEVICE (object), result, &error))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  g_debug ("reapply on %s: %s", nm_device_get_iface (self->device), error->message);
  nm_client_activate_connection_async (self->client, NM_CONNECTION (self->remote), self->device, NULL,
                                       NULL, activate_done, g_steal_pointer (&task));
}

/* The device runs this connection now: take the new settings at once. */
static gboolean
device_runs_connection (QfNmFix *self)
{
  NMActiveConnection *active = nm_device_get_active_connection (self->device);

  return active != NULL && nm_active_connection_get_connection (active) == self->remote;
}

static void
update_done (GObject      *object,
             GAsyncResult *result,
             gpointer      data)
{
  g_autoptr(GTask) task = data;
  QfNmFix *self = g_task_get_source_object (task);
  g_autoptr(GVariant) reply = NULL;
  GError *error = NULL;

  reply = nm_remote_connection_update2_finish (NM_REMOTE_CONNECTION (object), result, &error);
  if (reply == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  /* saved: a cancel now would report a change that NetworkManager holds as not made */
  g_task_set_check_cancellable (task, FALSE);
  /* the task data says which way we went: TRUE for apply */
  self->applied = GPOINTER_TO_INT (g_task_get_task_data (task));
  if (!self->applied)
    g_clear_object (&self->previous);
  g_clear_pointer (&self->note, g_free);
  if (!device_runs_connection (self))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  /* the settings are saved: from here on the change runs to its end whatever the caller
   * cancels, so applied (and the undo copy) stay true to what NetworkManager holds */
  nm_device_reapply_async (self->device, NULL, 0, 0, NULL, reapply_done, g_steal_pointer (&task));
}

/* Writes settings to the connection. The last-used timestamp is left out: NetworkManager keeps
 * it in its own timestamps file, and the one GetSettings reports would otherwise land in the
 * key file, which then differs from the one written before. */
static void
write_settings (QfNmFix      *self,
                NMConnection *settings,
                gboolean      applying,
                GTask        *task)   /* taken */
{
  g_autoptr(NMConnection) sent = nm_simple_connection_new_clone (settings);
  NMSettingConnection *s_con = nm_connection_get_setting_connection (sent);

  if (s_con != NULL)
    g_object_set (s_con, NM_SETTING_CONNECTION_TIMESTAMP, (guint64) 0, NULL);
  g_task_set_task_data (task, GINT_TO_POINTER (applying), NULL);
  nm_remote_connection_update2 (self->remote,
                                nm_connection_to_dbus (sent, NM_CONNECTION_SERIALIZE_ALL),
                                NM_SETTINGS_UPDATE2_FLAG_TO_DISK, NULL,
                                g_task_get_cancellable (task), update_done, task);
}

void
qf_nm_fix_apply_async (QfNmFix             *self,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  GTask *task;
  g_autoptr(NMConnection) changed = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (QF_IS_NM_FIX (self));
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, qf_nm_fix_apply_async);
  if (self->applied)
    {
      g_task_return_new_error (task, QF_NM_FIX_ERROR, QF_NM_FIX_ERROR_STATE, _("the change is already applied"));
      g_object_unref (task);
      return;
    }
  g_clear_object (&self->previous);
  self->previous = nm_simple_connection_new_clone (NM_CONNECTION (self->remote));
  changed = nm_simple_connection_new_clone (NM_CONNECTION (self->remote));
  for (guint i = 0; i < self->changes->len; i++)
    set_value (changed, &g_array_index (self->changes, Change, i));
  if (!nm_connection_normalize (changed, NULL, NULL, &error))
    {
      g_task_return_new_error (task, QF_NM_FIX_ERROR, QF_NM_FIX_ERROR_NOT_HELD,
                               _("NetworkManager would refuse the change: %s"), error->message);
      g_object_unref (task);
      return;
    }
  write_settings (self, changed, TRUE, task);
}

gboolean
qf_nm_fix_apply_finish (QfNmFix       *self,
                        GAsyncResult  *result,
                        GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

void
qf_nm_fix_undo_async (QfNmFix             *self,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (QF_IS_NM_FIX (self));
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, qf_nm_fix_undo_async);
  if (!self->applied || self->previous == NULL)
    {
      g_task_return_new_error (task, QF_NM_FIX_ERROR, QF_NM_FIX_ERROR_STATE, _("there is no applied change to undo"));
      g_object_unref (task);
      return;
    }
  write_settings (self, self->previous, FALSE, task);
}

gboolean
qf_nm_fix_undo_finish (QfNmFix       *self,
                       GAsyncResult  *result,
                       GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
