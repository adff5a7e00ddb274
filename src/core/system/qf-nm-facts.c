/* qf-nm-facts.c — what NetworkManager says of one interface, for the network audit (src/core);
 * see QfNmFacts in qf-net-audit.h. From a live NMClient, or from key files below a fixture root
 * (read with libnm's own keyfile reader, so a fixture is exactly what NetworkManager stores). */
#include "config.h"

#include "qf-net-audit.h"

void
qf_nm_facts_free (QfNmFacts *facts)
{
  if (facts == NULL)
    return;
  g_clear_object (&facts->connection);
  g_free (facts->connection_id);
  g_free (facts->connection_path);
  g_free (facts);
}

static QfNmFacts *
facts_new (void)
{
  QfNmFacts *facts = g_new0 (QfNmFacts, 1);

  facts->device_state = NM_DEVICE_STATE_UNKNOWN;
  facts->dhcp4_lease = -1;
  facts->strength_pct = -1;
  return facts;
}

static void
set_connection (QfNmFacts    *facts,
                NMConnection *connection,
                const char   *path)
{
  facts->connection = nm_simple_connection_new_clone (connection);
  facts->connection_id = g_strdup (nm_connection_get_id (connection));
  facts->connection_path = g_strdup (path);
}

NMRemoteConnection *
qf_nm_device_connection (NMDevice *device)
{
  NMActiveConnection *active = nm_device_get_active_connection (device);
  const GPtrArray *available;
  NMRemoteConnection *fallback = NULL;

  if (active != NULL && nm_active_connection_get_connection (active) != NULL)
    return nm_active_connection_get_connection (active);
  available = nm_device_get_available_connections (device);
  for (guint i = 0; available != NULL && i < available->len; i++)
    {
      NMRemoteConnection *remote = g_ptr_array_index (available, i);
      NMSettingConnection *s_con = nm_connection_get_setting_connection (NM_CONNECTION (remote));

      if (s_con != NULL && nm_setting_connection_get_autoconnect (s_con))
        return remote;
      if (fallback == NULL)
        fallback = remote;
    }
  return fallback;
}

QfNmFacts *
qf_nm_facts_from_client (NMClient   *client,
                         const char *iface)
{
  QfNmFacts *facts;
  NMDevice *device;
  NMRemoteConnection *remote;

  g_return_val_if_fail (NM_IS_CLIENT (client) && iface != NULL, NULL);
  if (!nm_client_get_nm_running (client))
    return NULL;
  facts = facts_new ();
  device = nm_client_get_device_by_iface (client, iface);
  if (device == NULL)
    return facts;
  facts->device_found = TRUE;
  facts->device_state = nm_device_get_state (device);
  /* getting its addresses: a DHCP connection in this state has no lease yet */
  if (facts->device_state == NM_DEVICE_STATE_IP_CONFIG)
    facts->dhcp4_lease = 0;
  else if (facts->device_state == NM_DEVICE_STATE_ACTIVATED)
    facts->dhcp4_lease = nm_device_get_dhcp4_config (device) != NULL;
  remote = qf_nm_device_connection (device);
  if (remote != NULL)
    set_connection (facts, NM_CONNECTION (remote), nm_object_get_path (NM_OBJECT (remote)));
  if (NM_IS_DEVICE_WIFI (device))
    {
      NMAccessPoint *ap = nm_device_wifi_get_active_access_point (NM_DEVICE_WIFI (device));

      facts->bitrate_kbps = nm_device_wifi_get_bitrate (NM_DEVICE_WIFI (device));
      if (ap != NULL)
        {
          facts->frequency_mhz = nm_access_point_get_frequency (ap);
          facts->strength_pct = nm_access_point_get_strength (ap);
        }
    }
  return facts;
}

static NMConnection *
read_keyfile (const char *dir,
              const char *file)
{
  g_autofree char *path = g_build_filename (dir, file, NULL);
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autoptr(GError) error = NULL;
  NMConnection *connection;

  if (!g_str_has_suffix (file, ".nmconnection")
      || !g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, NULL))
    return NULL;
  connection = nm_keyfile_read (kf, dir, NM_KEYFILE_HANDLER_FLAGS_NONE, NULL, NULL, &error);
  if (connection == NULL)
    g_debug ("%s: %s", path, error->message);
  return connection;
}

QfNmFacts *
qf_nm_facts_from_keyfiles (const char *root,
                           const char *iface)
{
  g_autofree char *dir = g_build_filename (root, "etc/NetworkManager/system-connections", NULL);
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  QfNmFacts *facts;
  const char *name;

  g_return_val_if_fail (root != NULL && iface != NULL, NULL);
  if (listing == NULL)
    return NULL;
  facts = facts_new ();
  while ((name = g_dir_read_name (listing)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
  for (guint i = 0; i < names->len && facts->connection == NULL; i++)
    {
      g_autoptr(NMConnection) connection = read_keyfile (dir, g_ptr_array_index (names, i));

      if (connection != NULL && g_strcmp0 (nm_connection_get_interface_name (connection), iface) == 0)
        {
          set_connection (facts, connection, NULL);
          facts->device_found = TRUE;
        }
    }
  return facts;
}
