/* qf-nic.c — the driver's own facts about a network card (src/core); see qf-nic.h.
 *
 * Live facts come from the SIOCETHTOOL ioctl, the interface ethtool itself used before its
 * netlink one and which every kernel still answers: ETHTOOL_GLINKSETTINGS (ETHTOOL_GSET on old
 * drivers), ETHTOOL_GEEE, ETHTOOL_GCOALESCE, ETHTOOL_GRINGPARAM, and the feature strings with
 * ETHTOOL_GFEATURES.
 * A driver that lacks an operation answers EOPNOTSUPP, which we keep as "not reported". */
#include "config.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "qf-nic.h"

void
qf_nic_facts_free (QfNicFacts *facts)
{
  if (facts == NULL)
    return;
  g_clear_pointer (&facts->features, g_hash_table_unref);
  g_free (facts->wifi_width);
  g_free (facts->wifi_channel);
  g_free (facts);
}

const char *
qf_nic_facts_feature (const QfNicFacts *facts,
                      const char       *name)
{
  g_return_val_if_fail (facts != NULL && name != NULL, NULL);
  return facts->features != NULL ? g_hash_table_lookup (facts->features, name) : NULL;
}

static QfNicFacts *
facts_new (void)
{
  QfNicFacts *facts = g_new0 (QfNicFacts, 1);

  facts->speed_mbps = -1;
  facts->full_duplex = -1;
  facts->autoneg = -1;
  facts->wifi_power_save = -1;
  return facts;
}

/* ---------------------------------------------------------------- SIOCETHTOOL */

static gboolean
ethtool_ioctl (int         fd,
               const char *iface,
               void       *data)
{
  struct ifreq ifr = { 0 };

  g_strlcpy (ifr.ifr_name, iface, sizeof ifr.ifr_name);
  ifr.ifr_data = data;
  return ioctl (fd, SIOCETHTOOL, &ifr) == 0;
}

static void
set_link (QfNicFacts *facts,
          guint32     speed,
          guint8      duplex,
          guint8      autoneg)
{
  facts->have_link = TRUE;
  facts->speed_mbps = speed == 0 || speed == (guint32) SPEED_UNKNOWN ? -1 : (gint64) speed;
  facts->full_duplex = duplex == DUPLEX_FULL ? 1 : duplex == DUPLEX_HALF ? 0 : -1;
  facts->autoneg = autoneg == AUTONEG_ENABLE ? 1 : 0;
}

static void
read_link (int         fd,
           const char *iface,
           QfNicFacts *facts)
{
  /* GLINKSETTINGS is a handshake: the first answer says how many mask words the kernel uses */
  struct {
    struct ethtool_link_settings req;
    guint32 masks[3 * 127];
  } link = { 0 };
  struct ethtool_cmd legacy = { .cmd = ETHTOOL_GSET };

  link.req.cmd = ETHTOOL_GLINKSETTINGS;
  if (ethtool_ioctl (fd, iface, &link) && link.req.link_mode_masks_nwords < 0)
    {
      gint8 nwords = -link.req.link_mode_masks_nwords;

      memset (&link, 0, sizeof link);
      link.req.cmd = ETHTOOL_GLINKSETTINGS;
      link.req.link_mode_masks_nwords = nwords;
      if (ethtool_ioctl (fd, iface, &link) && link.req.link_mode_masks_nwords > 0)
        {
          set_link (facts, link.req.speed, link.req.duplex, link.req.autoneg);
          return;
        }
    }
  if (ethtool_ioctl (fd, iface, &legacy))
    set_link (facts, ethtool_cmd_speed (&legacy), legacy.duplex, legacy.autoneg);
}

static void
read_eee (int         fd,
          const char *iface,
          QfNicFacts *facts)
{
  struct ethtool_eee eee = { .cmd = ETHTOOL_GEEE };

  if (!ethtool_ioctl (fd, iface, &eee))
    return;
  facts->have_eee = TRUE;
  facts->eee_supported = eee.supported != 0;
  facts->eee_enabled = eee.eee_enabled != 0;
  facts->eee_active = eee.eee_active != 0;
}

static void
read_ring (int         fd,
           const char *iface,
           QfNicFacts *facts)
{
  struct ethtool_ringparam r = { .cmd = ETHTOOL_GRINGPARAM };

  if (!ethtool_ioctl (fd, iface, &r))
    return;
  facts->have_ring = TRUE;
  facts->rx_ring = r.rx_pending;
  facts->rx_ring_max = r.rx_max_pending;
  facts->tx_ring = r.tx_pending;
  facts->tx_ring_max = r.tx_max_pending;
}

static void
read_coalesce (int         fd,
               const char *iface,
               QfNicFacts *facts)
{
  struct ethtool_coalesce c = { .cmd = ETHTOOL_GCOALESCE };

  if (!ethtool_ioctl (fd, iface, &c))
    return;
  facts->have_coalesce = TRUE;
  facts->rx_usecs = c.rx_coalesce_usecs;
  facts->rx_frames = c.rx_max_coalesced_frames;
  facts->tx_usecs = c.tx_coalesce_usecs;
  facts->tx_frames = c.tx_max_coalesced_frames;
  facts->adaptive_rx = c.use_adaptive_rx_coalesce != 0;
  facts->adaptive_tx = c.use_adaptive_tx_coalesce != 0;
}

static void
read_features (int         fd,
               const char *iface,
               QfNicFacts *facts)
{
  struct {
    struct ethtool_sset_info info;
    guint32 count;
  } sset = { .info = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ULL << ETH_SS_FEATURES } };
  g_autofree struct ethtool_gstrings *strings = NULL;
  g_autofree struct ethtool_gfeatures *features = NULL;
  guint32 n, blocks;

  if (!ethtool_ioctl (fd, iface, &sset) || sset.info.sset_mask == 0 || sset.count == 0)
    return;
  n = MIN (sset.count, 4096u);
  blocks = (n + 31) / 32;
  strings = g_malloc0 (sizeof *strings + (gsize) n * ETH_GSTRING_LEN);
  strings->cmd = ETHTOOL_GSTRINGS;
  strings->string_set = ETH_SS_FEATURES;
  strings->len = n;
  features = g_malloc0 (sizeof *features + blocks * sizeof (struct ethtool_get_features_block));
  features->cmd = ETHTOOL_GFEATURES;
  features->size = blocks;
  if (!ethtool_ioctl (fd, iface, strings) || !ethtool_ioctl (fd, iface, features))
    return;
  facts->features = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint32 i = 0; i < n; i++)
    {
      const char *name = (const char *) strings->data + (gsize) i * ETH_GSTRING_LEN;
      guint32 bit = 1u << (i % 32);
      const struct ethtool_get_features_block *block = &features->features[i / 32];
      gboolean active = (block->active & bit) != 0;
      /* as ethtool -k marks it: the driver cannot change it */
      gboolean fixed = !(block->available & bit) || (block->never_changed & bit);

      if (*name != '\0')
        g_hash_table_replace (facts->features, g_strndup (name, ETH_GSTRING_LEN),
                              (gpointer) (active ? (fixed ? "on [fixed]" : "on")
                                                 : (fixed ? "off [fixed]" : "off")));
    }
}

/* ---------------------------------------------------------------- Wi-Fi through iw */

static char *
run_iw (const char *const *args)
{
  g_autofree char *iw = g_find_program_in_path ("iw");
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  char *out = NULL;
  gint status = 0;

  if (iw == NULL)
    return NULL;
  g_ptr_array_add (argv, iw);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  if (!g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                     &out, NULL, &status, NULL) || !g_spawn_check_wait_status (status, NULL))
    {
      g_free (out);
      return NULL;
    }
  return out;
}

/* The text after `key` up to the end of its line or `stop`, stripped, or NULL. */
static char *
text_after (const char *text,
            const char *key,
            const char *stop)
{
  const char *p = text != NULL ? strstr (text, key) : NULL;
  gsize len;

  if (p == NULL)
    return NULL;
  p += strlen (key);
  len = strcspn (p, stop);
  return g_strstrip (g_strndup (p, len));
}

static void
read_wifi_live (const char *iface,
                QfNicFacts *facts)
{
  const char *power_args[] = { "dev", iface, "get", "power_save", NULL };
  const char *info_args[] = { "dev", iface, "info", NULL };
  g_autofree char *iw = g_find_program_in_path ("iw");
  g_autofree char *power = NULL;
  g_autofree char *info = NULL;
  g_autofree char *state = NULL;

  if (iw == NULL)
    {
      facts->iw_missing = TRUE;
      return;
    }
  power = run_iw (power_args);
  state = text_after (power, "Power save:", "\n");
  if (state != NULL)
    facts->wifi_power_save = g_str_equal (state, "on") ? 1 : 0;
  info = run_iw (info_args);
  /* "channel 36 (5180 MHz), width: 80 MHz, center1: 5210 MHz" */
  facts->wifi_channel = text_after (info, "channel ", ",\n");
  facts->wifi_width = text_after (info, "width:", ",\n");
}

static void
read_live (const char *iface,
           QfNicFacts *facts)
{
  g_autofree char *wireless = g_build_filename ("/sys/class/net", iface, "wireless", NULL);
  int fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

  if (fd < 0)
    fd = socket (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd >= 0)
    {
      read_link (fd, iface, facts);
      read_eee (fd, iface, facts);
      read_coalesce (fd, iface, facts);
      read_ring (fd, iface, facts);
      read_features (fd, iface, facts);
      close (fd);
    }
  if (g_file_test (wireless, G_FILE_TEST_EXISTS))
    read_wifi_live (iface, facts);
}

/* ---------------------------------------------------------------- fixture key file */

static gint
keyfile_switch (GKeyFile   *kf,
                const char *group,
                const char *key)
{
  g_autofree char *value = g_key_file_get_string (kf, group, key, NULL);

  if (value == NULL)
    return -1;
  return g_str_equal (value, "on") || g_str_equal (value, "true") || g_str_equal (value, "full")
         || g_str_equal (value, "1");
}

static void
read_fixture_link (GKeyFile   *kf,
                   QfNicFacts *facts)
{
  if (g_key_file_has_group (kf, "link"))
    {
      g_autofree char *duplex = g_key_file_get_string (kf, "link", "duplex", NULL);

      facts->have_link = TRUE;
      facts->speed_mbps = g_key_file_has_key (kf, "link", "speed", NULL)
                            ? g_key_file_get_int64 (kf, "link", "speed", NULL) : -1;
      facts->full_duplex = duplex == NULL ? -1 : g_str_equal (duplex, "full");
      facts->autoneg = keyfile_switch (kf, "link", "autoneg");
    }
  if (g_key_file_has_group (kf, "eee"))
    {
      facts->have_eee = TRUE;
      facts->eee_supported = keyfile_switch (kf, "eee", "supported") != 0;
      facts->eee_enabled = keyfile_switch (kf, "eee", "enabled") == 1;
      facts->eee_active = keyfile_switch (kf, "eee", "active") == 1;
    }
}

static void
read_fixture (const char *root,
              const char *iface,
              QfNicFacts *facts)
{
  g_autofree char *path = g_build_filename (root, "ethtool", iface, NULL);
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_auto(GStrv) keys = NULL;
  g_autofree char *iw = NULL;

  if (!g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, NULL))
    return;
  read_fixture_link (kf, facts);
  if (g_key_file_has_group (kf, "coalesce"))
    {
      facts->have_coalesce = TRUE;
      facts->rx_usecs = g_key_file_get_integer (kf, "coalesce", "rx-usecs", NULL);
      facts->rx_frames = g_key_file_get_integer (kf, "coalesce", "rx-frames", NULL);
      facts->tx_usecs = g_key_file_get_integer (kf, "coalesce", "tx-usecs", NULL);
      facts->tx_frames = g_key_file_get_integer (kf, "coalesce", "tx-frames", NULL);
      facts->adaptive_rx = keyfile_switch (kf, "coalesce", "adaptive-rx") == 1;
      facts->adaptive_tx = keyfile_switch (kf, "coalesce", "adaptive-tx") == 1;
    }
  if (g_key_file_has_group (kf, "ring"))
    {
      facts->have_ring = TRUE;
      facts->rx_ring = g_key_file_get_integer (kf, "ring", "rx", NULL);
      facts->rx_ring_max = g_key_file_get_integer (kf, "ring", "rx-max", NULL);
      facts->tx_ring = g_key_file_get_integer (kf, "ring", "tx", NULL);
      facts->tx_ring_max = g_key_file_get_integer (kf, "ring", "tx-max", NULL);
    }
  keys = g_key_file_get_keys (kf, "features", NULL, NULL);
  if (keys != NULL)
    facts->features = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    {
      static const char *const values[] = { "on", "off", "on [fixed]", "off [fixed]" };
      g_autofree char *value = g_key_file_get_string (kf, "features", keys[i], NULL);

      for (guint v = 0; value != NULL && v < G_N_ELEMENTS (values); v++)
        if (g_str_equal (value, values[v]))
          g_hash_table_replace (facts->features, g_strdup (keys[i]), (gpointer) values[v]);
    }
  iw = g_key_file_get_value (kf, "wifi", "iw", NULL);
  facts->iw_missing = g_strcmp0 (iw, "missing") == 0;
  facts->wifi_power_save = keyfile_switch (kf, "wifi", "power-save");
  facts->wifi_width = g_key_file_get_string (kf, "wifi", "width", NULL);
  facts->wifi_channel = g_key_file_get_string (kf, "wifi", "channel", NULL);
}

QfNicFacts *
qf_nic_facts_read (const char *root,
                   const char *iface)
{
  QfNicFacts *facts = facts_new ();

  g_return_val_if_fail (iface != NULL, facts);
  if (root == NULL || g_str_equal (root, "/"))
    read_live (iface, facts);
  else
    read_fixture (root, iface, facts);
  return facts;
}
