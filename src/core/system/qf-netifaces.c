/* qf-netifaces.c — the network interface list, from NetworkManager or from the kernel (src/core).
 *
 * With NetworkManager: one NMClient (created asynchronously so the main thread never waits on
 * D-Bus); every device, IP config and active access point notifies us and we rebuild the list
 * on an idle, emitting items-changed only when something a person would see changed. Only
 * ethernet and Wi-Fi devices are listed: those are what a robot controller talks through.
 *
 * Without it: a worker thread reads getifaddrs and /sys/class/net for the interfaces that sit on
 * real hardware (a "device" link in sysfs; bridges, veths and ifb are virtual), again every
 * few seconds. USB adapters are recognised by "/usb" in their sysfs device path (NetworkManager's
 * UDI is that same path). */
#include "config.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <NetworkManager.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qf-i18n.h"
#include "qf-netifaces.h"
#include "qf-sysinfo.h"

#define KERNEL_RESCAN_SECONDS 3

/* ---------------------------------------------------------------- QfNetIface */

struct _QfNetIface
{
  GObject         parent_instance;

  char           *name;
  QfNetIfaceKind  kind;
  QfNetIfaceState state;
  GStrv           ipv4;
  GStrv           ipv6;
  guint           speed_mbps;
  char           *ssid;
  gint            signal;
  gboolean        is_usb;
  char           *driver;
  char           *hw_address;
};

G_DEFINE_FINAL_TYPE (QfNetIface, qf_net_iface, G_TYPE_OBJECT)

static void
qf_net_iface_finalize (GObject *object)
{
  QfNetIface *self = QF_NET_IFACE (object);

  g_free (self->name);
  g_strfreev (self->ipv4);
  g_strfreev (self->ipv6);
  g_free (self->ssid);
  g_free (self->driver);
  g_free (self->hw_address);
  G_OBJECT_CLASS (qf_net_iface_parent_class)->finalize (object);
}

static void
qf_net_iface_class_init (QfNetIfaceClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = qf_net_iface_finalize;
}

static void
qf_net_iface_init (QfNetIface *self)
{
  self->signal = -1;
}

const char *
qf_net_iface_get_name (QfNetIface *self)
{
  g_return_val_if_fail (QF_IS_NET_IFACE (self), NULL);
  return self->name;
}

QfNetIfaceKind
qf_net_iface_get_kind (QfNetIface *self)
{
  g_return_val_if_fail (QF_IS_NET_IFACE (self), QF_NET_IFACE_WIRED);
  return self->kind;
}

QfNetIfaceState
qf_net_iface_get_state (QfNetIface *self)
{
  g_return_val_if_fail (QF_IS_NET_IFACE (self), QF_NET_IFACE_STATE_UNKNOWN);
  return self->state;
}

const char *const *
qf_net_iface_get_ipv4 (QfNetIface *self)
{
  g_return_val_if_fail (QF_IS_NET_IFACE (self), NULL);
  return (const char *const *) self->ipv4;
}

const char *const *
qf_net_iface_get_ipv6 (QfNetIface *self)
{
  g_return_val_if_fail (QF_IS_NET_IFACE (self), NULL);
  return (const char *const *) self->ipv6;
}

guint
qf_net_iface_get_speed_mbps (QfNetIface *self)
{
  g_return_val_if_fail (QF_IS_NET_IFACE (self), 0);
  return self->speed_mbps;
}

const char *
qf_net_iface_get_ssid (QfNetIface *self)
{
  g_return_val_if_fail (QF_IS_NET_IFACE (self), NULL);
  return self->ssid;
}

gint
qf_net_iface_get_signal (QfNetIface *self)
{
  g_return_val_if_fail (QF_IS_NET_IFACE (self), -1);
  return self->signal;
}

gboolean
qf_net_iface_get_is_usb (QfNetIface *self)
{
  g_return_val_if_fail (QF_IS_NET_IFACE (self), FALSE);
  return self->is_usb;
}

const char *
qf_net_iface_get_driver (QfNetIface *self)
{
  g_return_val_if_fail (QF_IS_NET_IFACE (self), NULL);
  return self->driver;
}

const char *
qf_net_iface_get_hw_address (QfNetIface *self)
{
  g_return_val_if_fail (QF_IS_NET_IFACE (self), NULL);
  return self->hw_address;
}

const char *
qf_net_iface_state_to_string (QfNetIfaceState state)
{
  switch (state)
    {
    case QF_NET_IFACE_STATE_UNMANAGED:
      return _("Not managed by NetworkManager");
    case QF_NET_IFACE_STATE_UNAVAILABLE:
      return _("Unavailable (cable unplugged or radio off)");
    case QF_NET_IFACE_STATE_DISCONNECTED:
      return _("Disconnected");
    case QF_NET_IFACE_STATE_CONNECTING:
      return _("Connecting");
    case QF_NET_IFACE_STATE_CONNECTED:
      return _("Connected");
    case QF_NET_IFACE_STATE_FAILED:
      return _("Connection failed");
    case QF_NET_IFACE_STATE_UNKNOWN:
    default:
      return _("State unknown");
    }
}

/* Everything a person sees of an interface, to tell whether a rebuild changed anything. */
static char *
iface_summary (QfNetIface *self)
{
  g_autofree char *v4 = g_strjoinv (",", self->ipv4);
  g_autofree char *v6 = g_strjoinv (",", self->ipv6);

  return g_strdup_printf ("%s|%d|%d|%s|%s|%u|%s|%d|%d|%s|%s", self->name, self->kind, self->state,
                          v4, v6, self->speed_mbps, self->ssid ? self->ssid : "", self->signal,
                          self->is_usb, self->driver ? self->driver : "",
                          self->hw_address ? self->hw_address : "");
}

static QfNetIface *
iface_new (const char *name)
{
  QfNetIface *self = g_object_new (QF_TYPE_NET_IFACE, NULL);

  self->name = g_strdup (name);
  return self;
}

static gint
iface_compare (gconstpointer a,
               gconstpointer b)
{
  QfNetIface *ia = *(QfNetIface **) a;
  QfNetIface *ib = *(QfNetIface **) b;

  /* wired first (the recommended link for a controller), then by name */
  if (ia->kind != ib->kind)
    return ia->kind == QF_NET_IFACE_WIRED ? -1 : 1;
  return g_strcmp0 (ia->name, ib->name);
}

static gboolean
sysfs_path_is_usb (const char *path)
{
  return path != NULL && strstr (path, "/usb") != NULL;
}

/* ---------------------------------------------------------------- kernel fallback */

/* /sys/class/net/NAME/ATTRIBUTE below root, stripped, or NULL. */
static char *
sysfs_read (const char *root,
            const char *name,
            const char *attribute)
{
  g_autofree char *path = g_build_filename ("sys/class/net", name, attribute, NULL);

  return qf_sysfs_read_string (root, path);
}

static gboolean
sysfs_test (const char  *root,
            const char  *name,
            const char  *attribute,
            GFileTest    test)
{
  g_autofree char *path = g_build_filename (root ? root : "/", "sys/class/net", name, attribute, NULL);

  return g_file_test (path, test);
}

/* Whether the interface's device sits on a USB bus: 1, 0, or -1 when it has no device link (a
 * virtual interface). The link is resolved below root, as the kernel's relative links
 * ("../../../1-4:1.0") name the bus only in the path they lead to; a link that leads nowhere
 * below root is judged by its own text. */
static gint
sysfs_device_is_usb (const char *root,
                     const char *name)
{
  g_autofree char *link = g_build_filename (root ? root : "/", "sys/class/net", name, "device", NULL);
  g_autofree char *text = g_file_read_link (link, NULL);
  char resolved[PATH_MAX], resolved_root[PATH_MAX];
  gsize skip = 0;

  if (text == NULL)
    return -1;
  if (realpath (link, resolved) == NULL)
    return sysfs_path_is_usb (text);
  if (realpath (root ? root : "/", resolved_root) != NULL && strcmp (resolved_root, "/") != 0
      && g_str_has_prefix (resolved, resolved_root))
    skip = strlen (resolved_root);
  return sysfs_path_is_usb (resolved + skip);
}

static gboolean
sysfs_is_wireless (const char *root,
                   const char *name)
{
  return sysfs_test (root, name, "wireless", G_FILE_TEST_EXISTS)
         || sysfs_test (root, name, "phy80211", G_FILE_TEST_EXISTS);
}

/* A link speed in Mbit/s as sysfs writes it ("-1" when unknown), 0 when unknown. */
static guint
parse_speed (const char *speed)
{
  gint64 mbps = speed != NULL ? g_ascii_strtoll (speed, NULL, 10) : 0;

  return mbps > 0 && mbps < G_MAXUINT ? (guint) mbps : 0;
}

/* Link quality from /proc/net/wireless below root as a 0..100 figure (quality is out of 70 for
 * most drivers, the scale wext and iw use). -1 when the interface is not listed there. */
static gint
kernel_wireless_signal (const char *root,
                        const char *name)
{
  g_autofree char *contents = qf_sysfs_read_string (root, "proc/net/wireless");
  g_auto(GStrv) lines = NULL;

  if (contents == NULL)
    return -1;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = g_strstrip (lines[i]);
      char *colon = strchr (line, ':');
      gdouble quality;

      if (colon == NULL)
        continue;
      *colon = '\0';
      if (g_strcmp0 (line, name) != 0)
        continue;
      /* "wlan0: 0000   54.  -56.  -256 ..." — status, then link quality */
      if (sscanf (colon + 1, "%*x %lf", &quality) != 1)
        return -1;
      return CLAMP ((gint) (quality * 100.0 / 70.0 + 0.5), 0, 100);
    }
  return -1;
}

/* A network adapter of the PC: an ethernet-type link (ARPHRD_ETHER, Wi-Fi included) with a
 * device link, not a bridge, veth, tun or other virtual one. The one rule for the wizard's kernel
 * list and `run --peer auto`. */
static gboolean
sysfs_is_adapter (const char *root,
                  const char *name)
{
  g_autofree char *type = sysfs_read (root, name, "type");

  return g_strcmp0 (type, "1") == 0 && sysfs_test (root, name, "device", G_FILE_TEST_EXISTS);
}

gboolean
qf_net_iface_read_sysfs (const char      *root,
                         const char      *name,
                         QfNetIfaceSysfs *facts)
{
  g_autofree char *speed = NULL;
  gboolean exists;

  g_return_val_if_fail (name != NULL && facts != NULL, FALSE);

  exists = sysfs_test (root, name, NULL, G_FILE_TEST_IS_DIR);
  if (g_str_equal (name, "lo"))
    facts->kind = "loopback";
  else if (sysfs_is_wireless (root, name))
    facts->kind = "wireless";
  else
    facts->kind = exists ? "wired" : "unknown";
  speed = sysfs_read (root, name, "speed");
  facts->speed_mbps = parse_speed (speed);
  facts->usb = sysfs_device_is_usb (root, name);
  facts->adapter = exists && sysfs_is_adapter (root, name);
  facts->signal_pct = g_str_equal (facts->kind, "wireless") ? kernel_wireless_signal (root, name) : -1;
  return exists;
}

static char *
format_address (const struct sockaddr *addr,
                const struct sockaddr *mask)
{
  char text[INET6_ADDRSTRLEN];
  guint prefix = 0;

  if (addr->sa_family == AF_INET)
    {
      const struct sockaddr_in *in = (const struct sockaddr_in *) addr;

      inet_ntop (AF_INET, &in->sin_addr, text, sizeof text);
      if (mask != NULL)
        prefix = __builtin_popcount (((const struct sockaddr_in *) mask)->sin_addr.s_addr);
    }
  else
    {
      const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *) addr;

      inet_ntop (AF_INET6, &in6->sin6_addr, text, sizeof text);
      if (mask != NULL)
        {
          const struct sockaddr_in6 *m6 = (const struct sockaddr_in6 *) mask;

          for (guint i = 0; i < 16; i++)
            prefix += __builtin_popcount (m6->sin6_addr.s6_addr[i]);
        }
    }
  return g_strdup_printf ("%s/%u", text, prefix);
}

static QfNetIface *
kernel_iface_new (const char *name)
{
  QfNetIface *iface = iface_new (name);
  g_autofree char *operstate = sysfs_read ("/", name, "operstate");
  g_autofree char *carrier = sysfs_read ("/", name, "carrier");
  g_autofree char *speed = sysfs_read ("/", name, "speed");
  g_autofree char *driver_link = g_build_filename ("/sys/class/net", name, "device", "driver", NULL);
  g_autofree char *driver_target = g_file_read_link (driver_link, NULL);

  iface->kind = sysfs_is_wireless ("/", name) ? QF_NET_IFACE_WIRELESS : QF_NET_IFACE_WIRED;
  if (g_strcmp0 (operstate, "up") == 0)
    iface->state = QF_NET_IFACE_STATE_CONNECTED;
  else if (g_strcmp0 (operstate, "dormant") == 0)
    iface->state = QF_NET_IFACE_STATE_CONNECTING;
  else if (g_strcmp0 (operstate, "down") == 0 || g_strcmp0 (operstate, "lowerlayerdown") == 0)
    /* carrier reads "0" when administratively up without a link, and fails when down */
    iface->state = g_strcmp0 (carrier, "0") == 0 ? QF_NET_IFACE_STATE_UNAVAILABLE
                                                 : QF_NET_IFACE_STATE_DISCONNECTED;
  else
    iface->state = QF_NET_IFACE_STATE_UNKNOWN;
  iface->speed_mbps = parse_speed (speed);
  if (iface->kind == QF_NET_IFACE_WIRELESS)
    iface->signal = kernel_wireless_signal ("/", name);
  iface->is_usb = sysfs_device_is_usb ("/", name) > 0;
  iface->driver = driver_target ? g_path_get_basename (driver_target) : NULL;
  iface->hw_address = sysfs_read ("/", name, "address");
  return iface;
}

/* Worker thread: the interfaces on real hardware with an ethernet-type link. */
static GPtrArray *
kernel_scan (void)
{
  GPtrArray *list = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);
  struct ifaddrs *addrs = NULL;
  struct if_nameindex *names = if_nameindex ();

  for (struct if_nameindex *n = names; n != NULL && n->if_name != NULL; n++)
    {
      QfNetIface *iface;

      if (!sysfs_is_adapter ("/", n->if_name))
        continue;
      iface = kernel_iface_new (n->if_name);
      g_ptr_array_add (list, iface);
      g_hash_table_insert (by_name, iface->name, iface);
    }
  if (names != NULL)
    if_freenameindex (names);

  if (getifaddrs (&addrs) == 0)
    {
      g_autoptr(GHashTable) v4 = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                        (GDestroyNotify) g_ptr_array_unref);
      g_autoptr(GHashTable) v6 = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                        (GDestroyNotify) g_ptr_array_unref);

      for (struct ifaddrs *a = addrs; a != NULL; a = a->ifa_next)
        {
          QfNetIface *iface = g_hash_table_lookup (by_name, a->ifa_name);
          GHashTable *table;
          GPtrArray *strings;

          if (iface == NULL || a->ifa_addr == NULL)
            continue;
          if (a->ifa_addr->sa_family == AF_INET)
            table = v4;
          else if (a->ifa_addr->sa_family == AF_INET6)
            table = v6;
          else
            continue;
          strings = g_hash_table_lookup (table, iface->name);
          if (strings == NULL)
            {
              strings = g_ptr_array_new_with_free_func (g_free);
              g_hash_table_insert (table, iface->name, strings);
            }
          g_ptr_array_add (strings, format_address (a->ifa_addr, a->ifa_netmask));
        }
      freeifaddrs (addrs);

      for (guint i = 0; i < list->len; i++)
        {
          QfNetIface *iface = g_ptr_array_index (list, i);
          GPtrArray *s4 = g_hash_table_lookup (v4, iface->name);
          GPtrArray *s6 = g_hash_table_lookup (v6, iface->name);

          if (s4 != NULL)
            {
              g_ptr_array_add (s4, NULL);
              iface->ipv4 = g_strdupv ((GStrv) s4->pdata);
            }
          if (s6 != NULL)
            {
              g_ptr_array_add (s6, NULL);
              iface->ipv6 = g_strdupv ((GStrv) s6->pdata);
            }
        }
    }

  for (guint i = 0; i < list->len; i++)
    {
      QfNetIface *iface = g_ptr_array_index (list, i);

      if (iface->ipv4 == NULL)
        iface->ipv4 = g_new0 (char *, 1);
      if (iface->ipv6 == NULL)
        iface->ipv6 = g_new0 (char *, 1);
    }
  g_ptr_array_sort (list, iface_compare);
  return list;
}

/* ---------------------------------------------------------------- NetworkManager */

static QfNetIfaceState
nm_state_to_state (NMDeviceState state)
{
  switch (state)
    {
    case NM_DEVICE_STATE_UNMANAGED:
      return QF_NET_IFACE_STATE_UNMANAGED;
    case NM_DEVICE_STATE_UNAVAILABLE:
      return QF_NET_IFACE_STATE_UNAVAILABLE;
    case NM_DEVICE_STATE_DISCONNECTED:
    case NM_DEVICE_STATE_DEACTIVATING:
      return QF_NET_IFACE_STATE_DISCONNECTED;
    case NM_DEVICE_STATE_PREPARE:
    case NM_DEVICE_STATE_CONFIG:
    case NM_DEVICE_STATE_NEED_AUTH:
    case NM_DEVICE_STATE_IP_CONFIG:
    case NM_DEVICE_STATE_IP_CHECK:
    case NM_DEVICE_STATE_SECONDARIES:
      return QF_NET_IFACE_STATE_CONNECTING;
    case NM_DEVICE_STATE_ACTIVATED:
      return QF_NET_IFACE_STATE_CONNECTED;
    case NM_DEVICE_STATE_FAILED:
      return QF_NET_IFACE_STATE_FAILED;
    case NM_DEVICE_STATE_UNKNOWN:
    default:
      return QF_NET_IFACE_STATE_UNKNOWN;
    }
}

static GStrv
nm_addresses (NMIPConfig *config)
{
  GPtrArray *strings = g_ptr_array_new ();
  GPtrArray *addresses = config ? nm_ip_config_get_addresses (config) : NULL;

  for (guint i = 0; addresses != NULL && i < addresses->len; i++)
    {
      NMIPAddress *address = g_ptr_array_index (addresses, i);

      g_ptr_array_add (strings, g_strdup_printf ("%s/%u", nm_ip_address_get_address (address),
                                                 nm_ip_address_get_prefix (address)));
    }
  g_ptr_array_add (strings, NULL);
  return (GStrv) g_ptr_array_free (strings, FALSE);
}

static QfNetIface *
nm_iface_new (NMDevice *device)
{
  const char *name = nm_device_get_iface (device);
  QfNetIface *iface;

  if (name == NULL)
    return NULL;
  if (NM_IS_DEVICE_ETHERNET (device))
    {
      iface = iface_new (name);
      iface->kind = QF_NET_IFACE_WIRED;
      iface->speed_mbps = nm_device_ethernet_get_speed (NM_DEVICE_ETHERNET (device));
    }
  else if (NM_IS_DEVICE_WIFI (device))
    {
      NMAccessPoint *ap = nm_device_wifi_get_active_access_point (NM_DEVICE_WIFI (device));

      iface = iface_new (name);
      iface->kind = QF_NET_IFACE_WIRELESS;
      iface->speed_mbps = nm_device_wifi_get_bitrate (NM_DEVICE_WIFI (device)) / 1000;
      if (ap != NULL)
        {
          GBytes *ssid = nm_access_point_get_ssid (ap);

          if (ssid != NULL)
            {
              gsize len;
              const guint8 *data = g_bytes_get_data (ssid, &len);

              iface->ssid = nm_utils_ssid_to_utf8 (data, len);
            }
          iface->signal = nm_access_point_get_strength (ap);
        }
    }
  else
    return NULL;

  iface->state = nm_state_to_state (nm_device_get_state (device));
  iface->ipv4 = nm_addresses (nm_device_get_ip4_config (device));
  iface->ipv6 = nm_addresses (nm_device_get_ip6_config (device));
  iface->is_usb = sysfs_path_is_usb (nm_device_get_udi (device)) || sysfs_device_is_usb ("/", name) > 0;
  iface->driver = g_strdup (nm_device_get_driver (device));
  iface->hw_address = g_strdup (nm_device_get_hw_address (device));
  return iface;
}

/* ---------------------------------------------------------------- QfNetIfaces */

struct _QfNetIfaces
{
  GObject           parent_instance;

  GPtrArray        *items;        /* QfNetIface, sorted */
  QfNetIfacesSource source;
  char             *note;
  NMClient         *client;
  GCancellable     *cancellable;
  guint             rebuild_id;
  guint             rescan_id;
  gboolean          scanning;
};

enum {
  PROP_0,
  PROP_SOURCE,
  PROP_NOTE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static GType
qf_net_ifaces_get_item_type (GListModel *model)
{
  return QF_TYPE_NET_IFACE;
}

static guint
qf_net_ifaces_get_n_items (GListModel *model)
{
  return QF_NET_IFACES (model)->items->len;
}

static gpointer
qf_net_ifaces_get_item (GListModel *model,
                        guint       position)
{
  QfNetIfaces *self = QF_NET_IFACES (model);

  if (position >= self->items->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->items, position));
}

static void
qf_net_ifaces_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = qf_net_ifaces_get_item_type;
  iface->get_n_items = qf_net_ifaces_get_n_items;
  iface->get_item = qf_net_ifaces_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (QfNetIfaces, qf_net_ifaces, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, qf_net_ifaces_list_model_init))

static void kernel_start (QfNetIfaces *self, const char *why);

/* Takes the new list; emits items-changed only when it differs from what is shown. */
static void
replace_items (QfNetIfaces *self,
               GPtrArray   *items)
{
  guint old_len = self->items->len;
  gboolean same = items->len == old_len;

  for (guint i = 0; same && i < items->len; i++)
    {
      g_autofree char *a = iface_summary (g_ptr_array_index (items, i));
      g_autofree char *b = iface_summary (g_ptr_array_index (self->items, i));

      same = g_strcmp0 (a, b) == 0;
    }
  if (same)
    {
      g_ptr_array_unref (items);
      return;
    }
  g_ptr_array_unref (self->items);
  self->items = items;
  g_list_model_items_changed (G_LIST_MODEL (self), 0, old_len, items->len);
}

static void
set_source (QfNetIfaces      *self,
            QfNetIfacesSource source,
            const char       *note)
{
  if (g_strcmp0 (self->note, note) != 0)
    {
      g_free (self->note);
      self->note = g_strdup (note);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NOTE]);
    }
  if (self->source != source)
    {
      self->source = source;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOURCE]);
    }
}

static void nm_object_changed (QfNetIfaces *self);

static void
watch (QfNetIfaces *self,
       gpointer     object)
{
  if (object == NULL)
    return;
  g_signal_handlers_disconnect_by_func (object, nm_object_changed, self);
  g_signal_connect_object (object, "notify", G_CALLBACK (nm_object_changed), self,
                           G_CONNECT_SWAPPED);
  if (NM_IS_DEVICE (object))
    g_signal_connect_object (object, "state-changed", G_CALLBACK (nm_object_changed), self,
                             G_CONNECT_SWAPPED);
}

static void
nm_rebuild_now (QfNetIfaces *self)
{
  const GPtrArray *devices = nm_client_get_devices (self->client);
  GPtrArray *items = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; devices != NULL && i < devices->len; i++)
    {
      NMDevice *device = g_ptr_array_index (devices, i);
      QfNetIface *iface = nm_iface_new (device);

      if (iface == NULL)
        continue;
      g_ptr_array_add (items, iface);
      /* property changes of the device, its addresses and its access point all show */
      watch (self, device);
      watch (self, nm_device_get_ip4_config (device));
      watch (self, nm_device_get_ip6_config (device));
      if (NM_IS_DEVICE_WIFI (device))
        watch (self, nm_device_wifi_get_active_access_point (NM_DEVICE_WIFI (device)));
    }
  g_ptr_array_sort (items, iface_compare);
  replace_items (self, items);
}

static gboolean
nm_rebuild_idle (gpointer data)
{
  QfNetIfaces *self = data;

  self->rebuild_id = 0;
  if (self->source == QF_NET_IFACES_SOURCE_NETWORKMANAGER)
    nm_rebuild_now (self);
  return G_SOURCE_REMOVE;
}

static void
nm_object_changed (QfNetIfaces *self)
{
  if (self->rebuild_id == 0)
    self->rebuild_id = g_idle_add (nm_rebuild_idle, self);
}

static void
nm_running_changed (QfNetIfaces *self)
{
  if (nm_client_get_nm_running (self->client))
    {
      g_clear_handle_id (&self->rescan_id, g_source_remove);
      set_source (self, QF_NET_IFACES_SOURCE_NETWORKMANAGER, NULL);
      nm_rebuild_now (self);
    }
  else
    kernel_start (self, _("NetworkManager is not on the system bus"));
}

static void
client_ready (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(QfNetIfaces) self = user_data;
  g_autoptr(GError) error = NULL;
  NMClient *client = nm_client_new_finish (result, &error);

  if (client == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        kernel_start (self, error->message);
      return;
    }
  self->client = client;
  g_signal_connect_object (client, "device-added", G_CALLBACK (nm_object_changed), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (client, "device-removed", G_CALLBACK (nm_object_changed), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (client, "notify::nm-running", G_CALLBACK (nm_running_changed), self,
                           G_CONNECT_SWAPPED);
  nm_running_changed (self);
}

/* ---------------------------------------------------------------- kernel scanning */

static void
kernel_scan_thread (GTask        *task,
                    gpointer      source,
                    gpointer      task_data,
                    GCancellable *cancellable)
{
  g_task_return_pointer (task, kernel_scan (), (GDestroyNotify) g_ptr_array_unref);
}

static void
kernel_scan_done (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  QfNetIfaces *self = QF_NET_IFACES (object);
  GPtrArray *items = g_task_propagate_pointer (G_TASK (result), NULL);

  if (items == NULL)
    return;  /* cancelled: self may be going away */
  self->scanning = FALSE;
  if (self->source == QF_NET_IFACES_SOURCE_KERNEL)
    replace_items (self, items);
  else
    g_ptr_array_unref (items);
}

static void
kernel_rescan (QfNetIfaces *self)
{
  g_autoptr(GTask) task = NULL;

  if (self->scanning)
    return;
  self->scanning = TRUE;
  task = g_task_new (self, self->cancellable, kernel_scan_done, NULL);
  g_task_set_source_tag (task, kernel_rescan);
  g_task_set_return_on_cancel (task, TRUE);
  g_task_run_in_thread (task, kernel_scan_thread);
}

static gboolean
kernel_rescan_timeout (gpointer data)
{
  kernel_rescan (QF_NET_IFACES (data));
  return G_SOURCE_CONTINUE;
}

static void
kernel_start (QfNetIfaces *self,
              const char  *why)
{
  g_autofree char *note =
    g_strdup_printf (_("NetworkManager is not running (%s). These interfaces come from the kernel; Wi-Fi network names are not shown."),
                     why);

  set_source (self, QF_NET_IFACES_SOURCE_KERNEL, note);
  kernel_rescan (self);
  if (self->rescan_id == 0)
    self->rescan_id = g_timeout_add_seconds (KERNEL_RESCAN_SECONDS, kernel_rescan_timeout, self);
}

static void
qf_net_ifaces_dispose (GObject *object)
{
  QfNetIfaces *self = QF_NET_IFACES (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->rebuild_id, g_source_remove);
  g_clear_handle_id (&self->rescan_id, g_source_remove);
  g_clear_object (&self->client);
  G_OBJECT_CLASS (qf_net_ifaces_parent_class)->dispose (object);
}

static void
qf_net_ifaces_finalize (GObject *object)
{
  QfNetIfaces *self = QF_NET_IFACES (object);

  g_ptr_array_unref (self->items);
  g_free (self->note);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (qf_net_ifaces_parent_class)->finalize (object);
}

static void
qf_net_ifaces_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  QfNetIfaces *self = QF_NET_IFACES (object);

  switch (prop_id)
    {
    case PROP_SOURCE:
      g_value_set_int (value, self->source);
      break;
    case PROP_NOTE:
      g_value_set_string (value, self->note);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
qf_net_ifaces_class_init (QfNetIfacesClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = qf_net_ifaces_dispose;
  object_class->finalize = qf_net_ifaces_finalize;
  object_class->get_property = qf_net_ifaces_get_property;

  properties[PROP_SOURCE] =
    g_param_spec_int ("source", NULL, NULL, QF_NET_IFACES_SOURCE_NONE,
                      QF_NET_IFACES_SOURCE_KERNEL, QF_NET_IFACES_SOURCE_NONE,
                      G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_NOTE] =
    g_param_spec_string ("note", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
qf_net_ifaces_init (QfNetIfaces *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
  self->cancellable = g_cancellable_new ();
}

QfNetIfaces *
qf_net_ifaces_new (void)
{
  QfNetIfaces *self = g_object_new (QF_TYPE_NET_IFACES, NULL);

  nm_client_new_async (self->cancellable, client_ready, g_object_ref (self));
  return self;
}

QfNetIfacesSource
qf_net_ifaces_get_source (QfNetIfaces *self)
{
  g_return_val_if_fail (QF_IS_NET_IFACES (self), QF_NET_IFACES_SOURCE_NONE);
  return self->source;
}

const char *
qf_net_ifaces_get_note (QfNetIfaces *self)
{
  g_return_val_if_fail (QF_IS_NET_IFACES (self), NULL);
  return self->note;
}

QfNetIface *
qf_net_ifaces_lookup (QfNetIfaces *self,
                      const char  *name)
{
  g_return_val_if_fail (QF_IS_NET_IFACES (self), NULL);

  for (guint i = 0; name != NULL && i < self->items->len; i++)
    {
      QfNetIface *iface = g_ptr_array_index (self->items, i);

      if (g_strcmp0 (iface->name, name) == 0)
        return iface;
    }
  return NULL;
}
