/* qf-nic.h — what a network card's driver reports about itself (src/core).
 *
 * The facts `ethtool` prints — link speed, duplex and autonegotiation, Energy-Efficient
 * Ethernet, interrupt coalescing, the offload features — read straight from the kernel through
 * the SIOCETHTOOL ioctl (no ethtool program needed), and for Wi-Fi the driver's power-save state
 * and channel width as `iw` prints them (read only when iw is installed).
 *
 * Below a fixture root (anything but "/") the same facts come from the key file
 * ROOT/ethtool/IFACE (groups [link], [eee], [coalesce], [features], [wifi]; see
 * tests/core/fixtures/net-audit/ethtool/eth0); a group or key that is absent is a fact the card
 * does not report, exactly as an ioctl the driver answers with EOPNOTSUPP.
 *
 * Any thread; a live read needs the caller to be in the interface's network namespace. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  /* [link]: FALSE when the driver reports no link settings */
  gboolean    have_link;
  gint64      speed_mbps;      /* -1: unknown (no carrier) */
  gint        full_duplex;     /* 1 full, 0 half, -1 unknown */
  gint        autoneg;         /* 1 on, 0 off, -1 not reported */

  /* [eee] */
  gboolean    have_eee;
  gboolean    eee_supported;   /* the card can do EEE at all */
  gboolean    eee_enabled;
  gboolean    eee_active;      /* negotiated with the link partner */

  /* [coalesce] */
  gboolean    have_coalesce;
  guint       rx_usecs, rx_frames, tx_usecs, tx_frames;
  gboolean    adaptive_rx, adaptive_tx;

  /* [ring]: the descriptor rings (ETHTOOL_GRINGPARAM), what a driver queues below the qdisc */
  gboolean    have_ring;
  guint       rx_ring, rx_ring_max, tx_ring, tx_ring_max;

  /* [features]: the kernel's names ("rx-gro", "rx-lro") → "on", "off", "on [fixed]" or
   * "off [fixed]" ([fixed]: the driver cannot change it, as ethtool -k marks it); NULL: not
   * reported */
  GHashTable *features;

  /* [wifi]: from the driver through iw */
  gboolean    iw_missing;      /* the iw program is not installed, so nothing below was read
                                * (fixtures: iw=missing) */
  gint        wifi_power_save; /* 1 on, 0 off, -1 not reported */
  char       *wifi_width;      /* "80 MHz", NULL: not reported */
  char       *wifi_channel;    /* "36 (5180 MHz)", NULL: not reported */
} QfNicFacts;

/* Reads the facts of iface below root ("/" or NULL: this PC, live). Never fails: what cannot be
 * read stays "not reported" (have_* FALSE, -1, NULL). */
QfNicFacts *qf_nic_facts_read  (const char *root,
                                const char *iface);
/* "on", "off", "on [fixed]", "off [fixed]" or NULL (not reported) */
const char *qf_nic_facts_feature (const QfNicFacts *facts,
                                  const char       *name);
void        qf_nic_facts_free  (QfNicFacts *facts);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfNicFacts, qf_nic_facts_free)

G_END_DECLS
