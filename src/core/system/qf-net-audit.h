/* qf-net-audit.h — the network readiness audit of one interface (src/core).
 *
 * Like the real-time readiness audit (qf-audit.h): one QfNetAuditCheck per setting of the card,
 * its driver and its NetworkManager connection that moves ping, socket-latency or bandwidth
 * figures, each with what was found, what is recommended, why it matters in plain words, and the
 * fix — the exact command, and when NetworkManager can hold the setting, the nmcli way so it
 * survives a reboot.
 *
 *   QfNetAuditConfig config = { .root = "/", .iface = "eth0", .nm = nm_facts, .peer = "fe80::2%eth0" };
 *   g_autoptr(GPtrArray) checks = qf_net_audit_run (&config, &error);   // of QfNetAuditCheck*
 *   JsonArray *json = qf_net_audit_to_json (checks);
 *       // [{id, title, status, found, recommended, advice, fix, fix_nm}, …]
 *
 * Check ids, in this order: link-speed, duplex, eee, coalescing, gro, irq-affinity, mtu,
 * ip-method, and for Wi-Fi also wifi-power-save, wifi-link (band, channel width, bit rate,
 * signal).
 *
 * Facts are read below config->root ("/": this PC): /sys/class/net/IFACE, /proc/interrupts,
 * /proc/irq/N/, /sys/devices/system/cpu/isolated and /proc/cmdline; the driver's own facts
 * through qf-nic.h (SIOCETHTOOL live, ROOT/ethtool/IFACE below a fixture root), and
 * NetworkManager's wifi.powersave default from ROOT/etc/NetworkManager/NetworkManager.conf and
 * conf.d/. A fact the card or driver does not report gives status UNKNOWN and says "not reported
 * by this card"; so do coalescing values that are all zero with adaptive moderation off, since
 * the ioctl fills unsupported values with zeros. A Wi-Fi fact unread because the iw program is
 * missing says "iw is not installed". Link and duplex go by the kernel's carrier flag ("no
 * link" when it is 0 or the interface is down). Nothing is guessed. The path-MTU probe (a ping
 * that may not be fragmented, of the interface's MTU) is sent only when config->peer is set
 * and root is "/": the peer is resolved first and its address family decides ping -4/-6 and the
 * header size; otherwise the mtu check says the path was not checked. Texts are translated
 * when the audit runs (the run's language); commands never are. Any thread; fails only when
 * the interface does not exist below root. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include <NetworkManager.h>

#include "qf-audit.h"

G_BEGIN_DECLS

#define QF_NET_AUDIT_ERROR (qf_net_audit_error_quark ())
GQuark qf_net_audit_error_quark (void);

typedef enum
{
  QF_NET_AUDIT_ERROR_NO_IFACE,
} QfNetAuditError;

/* What NetworkManager says of the interface: its connection's settings and the device's state. */
typedef struct
{
  NMConnection  *connection;      /* settings of the active connection, else the one that would
                                   * activate on it; NULL: the interface has none */
  char          *connection_id;
  char          *connection_path; /* D-Bus path of the remote connection, NULL for fixtures */
  NMDeviceState  device_state;    /* NM_DEVICE_STATE_UNKNOWN when not known (fixtures) */
  gint           dhcp4_lease;     /* 1 holds a DHCPv4 lease, 0 none, -1 not known */
  gboolean       device_found;    /* NetworkManager lists the interface */
  /* Wi-Fi, from the access point in use: 0 / -1 when unknown */
  guint32        frequency_mhz;
  guint32        bitrate_kbps;
  gint           strength_pct;
} QfNmFacts;

/* The facts of iface from a connected NMClient (main thread of that client); NULL when
 * NetworkManager is not running. */
QfNmFacts *qf_nm_facts_from_client   (NMClient   *client,
                                      const char *iface);
/* The facts from NetworkManager's key files below root (the *.nmconnection file in
 * ROOT/etc/NetworkManager/system-connections/ with interface-name=iface): for fixtures. NULL
 * when root holds no such directory. The device state stays unknown. */
QfNmFacts *qf_nm_facts_from_keyfiles (const char *root,
                                      const char *iface);
void       qf_nm_facts_free          (QfNmFacts  *facts);

typedef struct
{
  const char      *root;    /* "/" or NULL: this PC */
  const char      *iface;
  const QfNmFacts *nm;      /* NULL: NetworkManager not running, or not asked (nm_asked) */
  gboolean         nm_asked; /* TRUE: nm is what NetworkManager said (NULL: not running);
                              * FALSE with nm NULL: nobody asked it, so nothing is said of it */
  const char      *peer;    /* the helper's address, NULL: unknown */
} QfNetAuditConfig;

typedef struct
{
  char          *id;
  char          *title;        /* translated row label */
  QfAuditStatus  status;
  char          *found;        /* what was found, translated */
  char          *recommended;  /* what is recommended, translated */
  char          *advice;       /* why it matters, plain words, translated */
  char          *fix;          /* the exact command(s), "" when nothing to do */
  char          *fix_nm;       /* the nmcli command that makes it permanent, NULL when
                                * NetworkManager cannot hold the setting */
  char         **nm_settings;  /* the property/value pairs fix_nm sets on the connection
                                * ("ipv4.method", "link-local", …; NULL-terminated), NULL when
                                * fix_nm modifies no existing connection: what QfNmFix applies */
} QfNetAuditCheck;

/* The offloads that batch received packets (the gro check): the kernel's feature name, the
 * ethtool -K keyword, NetworkManager's property and the label shown. */
typedef struct
{
  const char *kernel;    /* "rx-gro" */
  const char *ethtool;   /* "gro" */
  const char *nm;        /* "ethtool.feature-gro" */
  const char *label;     /* "GRO" */
} QfNetBatchingFeature;

const QfNetBatchingFeature *qf_net_audit_batching_features (guint *n_features);

/* The connection active on device, else the first that could activate on it, preferring those
 * that connect by themselves; NULL when none (qf-nm-facts.c). Borrowed. */
NMRemoteConnection *qf_nm_device_connection (NMDevice *device);

GPtrArray       *qf_net_audit_run       (const QfNetAuditConfig *config,
                                         GError                **error);
JsonArray       *qf_net_audit_to_json   (GPtrArray              *checks);
QfNetAuditCheck *qf_net_audit_find      (GPtrArray              *checks,
                                         const char             *id);
void             qf_net_audit_check_free (QfNetAuditCheck       *check);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfNetAuditCheck, qf_net_audit_check_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfNmFacts, qf_nm_facts_free)

G_END_DECLS
