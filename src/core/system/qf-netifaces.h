/* qf-netifaces.h — the PC's network interfaces as a live list (src/core).
 *
 * QfNetIfaces is a GListModel of QfNetIface. It asks NetworkManager through libnm
 * (nm_client_new_async) and follows device-added/removed and state, address, access-point and
 * signal changes. When NetworkManager is not running (no system bus, or NM absent from it) the
 * same list comes from the kernel (getifaddrs, /sys/class/net) and is re-read every few seconds;
 * get_source() says which, get_note() says it in words. Main thread only. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef enum
{
  QF_NET_IFACE_WIRED,
  QF_NET_IFACE_WIRELESS,
} QfNetIfaceKind;

typedef enum
{
  QF_NET_IFACE_STATE_UNKNOWN,
  QF_NET_IFACE_STATE_UNMANAGED,      /* NM does not manage it */
  QF_NET_IFACE_STATE_UNAVAILABLE,    /* cable unplugged, radio off */
  QF_NET_IFACE_STATE_DISCONNECTED,
  QF_NET_IFACE_STATE_CONNECTING,
  QF_NET_IFACE_STATE_CONNECTED,
  QF_NET_IFACE_STATE_FAILED,
} QfNetIfaceState;

typedef enum
{
  QF_NET_IFACES_SOURCE_NONE,         /* still asking */
  QF_NET_IFACES_SOURCE_NETWORKMANAGER,
  QF_NET_IFACES_SOURCE_KERNEL,
} QfNetIfacesSource;

#define QF_TYPE_NET_IFACE (qf_net_iface_get_type ())
G_DECLARE_FINAL_TYPE (QfNetIface, qf_net_iface, QF, NET_IFACE, GObject)

const char     *qf_net_iface_get_name        (QfNetIface *self);
QfNetIfaceKind  qf_net_iface_get_kind        (QfNetIface *self);
QfNetIfaceState qf_net_iface_get_state       (QfNetIface *self);
/* "192.168.1.20/24" strings; never NULL, may be empty */
const char *const *qf_net_iface_get_ipv4     (QfNetIface *self);
const char *const *qf_net_iface_get_ipv6     (QfNetIface *self);
/* link speed in Mbit/s (Wi-Fi: the current bit rate), 0 when unknown */
guint           qf_net_iface_get_speed_mbps  (QfNetIface *self);
/* Wi-Fi only: SSID of the access point in use (NULL when none or unknown) and its signal 0..100
 * (-1 when unknown) */
const char     *qf_net_iface_get_ssid        (QfNetIface *self);
gint            qf_net_iface_get_signal      (QfNetIface *self);
gboolean        qf_net_iface_get_is_usb      (QfNetIface *self);
const char     *qf_net_iface_get_driver      (QfNetIface *self);
const char     *qf_net_iface_get_hw_address  (QfNetIface *self);

/* A translated word for a state, e.g. "Connected". */
const char     *qf_net_iface_state_to_string (QfNetIfaceState state);

/* One interface as the kernel describes it below root ("/" for this PC): /sys/class/net/NAME
 * and /proc/net/wireless. For runs that do not ask NetworkManager (qualify-cli run). */
typedef struct
{
  const char *kind;        /* "wired", "wireless", "loopback" (lo) or "unknown" (no such one) */
  guint       speed_mbps;  /* 0 when unknown */
  gint        usb;         /* 1 behind a USB bus, 0 not, -1 unknown (no device link) */
  gint        signal_pct;  /* Wi-Fi link quality 0..100, -1 when unknown or not Wi-Fi */
  gboolean    adapter;     /* a network adapter of the PC (ethernet-type, with a device link),
                            * as the wizard lists them: not a bridge, veth or tun */
} QfNetIfaceSysfs;

/* Fills facts; FALSE when there is no /sys/class/net/NAME below root. */
gboolean        qf_net_iface_read_sysfs      (const char      *root,
                                              const char      *name,
                                              QfNetIfaceSysfs *facts);

#define QF_TYPE_NET_IFACES (qf_net_ifaces_get_type ())
G_DECLARE_FINAL_TYPE (QfNetIfaces, qf_net_ifaces, QF, NET_IFACES, GObject)

/* Starts asking NetworkManager at once; the list fills (items-changed) when it answers, or from
 * the kernel when it cannot. Notifies "source" when that is known. */
QfNetIfaces      *qf_net_ifaces_new        (void);
QfNetIfacesSource qf_net_ifaces_get_source (QfNetIfaces *self);
/* NULL with NetworkManager; with the kernel fallback a translated sentence saying so and why. */
const char       *qf_net_ifaces_get_note   (QfNetIfaces *self);
/* The interface called name, or NULL. Borrowed. */
QfNetIface       *qf_net_ifaces_lookup     (QfNetIfaces *self,
                                            const char  *name);

G_END_DECLS
