/* qf-net-audit.c — the network readiness audit of one interface (src/core); see qf-net-audit.h.
 *
 * Thresholds follow what moves a robot controller's round trips: interrupt coalescing and
 * adaptive moderation hold a received frame for tens of microseconds before the CPU hears of
 * it; Energy-Efficient Ethernet sleeps the link between frames and wakes it late; receive
 * batching (GRO, LRO) keeps packets back to merge them; a card interrupting the CPU kept for the
 * real-time task steals it from that task; Wi-Fi power saving holds frames for a beacon
 * interval. The kernel's own values are quoted as found; nothing is inferred from a card's
 * name or kind. */
#include "config.h"

#include <netdb.h>
#include <string.h>
#include <sys/socket.h>

#include "qf-i18n.h"
#include "qf-net-audit.h"
#include "qf-nic.h"
#include "qf-sysinfo.h"
#include "qf-text.h"

/* rx-usecs above this hold a frame long enough to show in a ping figure */
#define COALESCE_RX_USECS_MAX 10
/* Wi-Fi signal below which retries start to show */
#define WIFI_SIGNAL_MIN_PCT 50
#define PING_TIMEOUT_S "2"

G_DEFINE_QUARK (qf-net-audit-error-quark, qf_net_audit_error)

typedef struct
{
  const QfNetAuditConfig *config;
  const char             *root;
  const char             *iface;
  const QfNmFacts        *nm;
  QfNicFacts             *nic;
  GPtrArray              *checks;
  char                   *word;         /* iface as a word of a command (qf_text_shell_word) */
  char                   *con;          /* the connection's id, shell-quoted; NULL: none */
  char                   *con_shown;    /* the connection's id for prose (qf_text_clean) */
  gboolean                wireless;
  gboolean                is_virtual;   /* no device behind it (veth, dummy, bridge) */
} NetAudit;

void
qf_net_audit_check_free (QfNetAuditCheck *check)
{
  if (check == NULL)
    return;
  g_free (check->id);
  g_free (check->title);
  g_free (check->found);
  g_free (check->recommended);
  g_free (check->advice);
  g_free (check->fix);
  g_free (check->fix_nm);
  g_strfreev (check->nm_settings);
  g_free (check);
}

QfNetAuditCheck *
qf_net_audit_find (GPtrArray  *checks,
                   const char *id)
{
  g_return_val_if_fail (checks != NULL && id != NULL, NULL);
  for (guint i = 0; i < checks->len; i++)
    {
      QfNetAuditCheck *check = g_ptr_array_index (checks, i);
      if (g_str_equal (check->id, id))
        return check;
    }
  return NULL;
}

JsonArray *
qf_net_audit_to_json (GPtrArray *checks)
{
  JsonArray *array = json_array_new ();

  g_return_val_if_fail (checks != NULL, array);
  for (guint i = 0; i < checks->len; i++)
    {
      QfNetAuditCheck *check = g_ptr_array_index (checks, i);
      JsonObject *obj = json_object_new ();

      json_object_set_string_member (obj, "id", check->id);
      json_object_set_string_member (obj, "title", check->title);
      json_object_set_string_member (obj, "status", qf_audit_status_to_string (check->status));
      json_object_set_string_member (obj, "found", check->found);
      json_object_set_string_member (obj, "recommended", check->recommended);
      json_object_set_string_member (obj, "advice", check->advice);
      json_object_set_string_member (obj, "fix", check->fix);
      if (check->fix_nm != NULL)
        json_object_set_string_member (obj, "fix_nm", check->fix_nm);
      else
        json_object_set_null_member (obj, "fix_nm");
      json_array_add_object_element (array, obj);
    }
  return array;
}

/* The property/value pairs of "nmcli connection modify ID P V …", NULL for any other command:
 * read back from the command itself, so what QfNmFix applies is what the row shows. */
static char **
modify_settings (const char *fix_nm)
{
  g_auto(GStrv) argv = NULL;
  gint argc = 0;

  if (fix_nm == NULL || !g_shell_parse_argv (fix_nm, &argc, &argv, NULL) || argc < 6 || argc % 2 != 0
      || !g_str_equal (argv[0], "nmcli") || !g_str_equal (argv[1], "connection")
      || !g_str_equal (argv[2], "modify"))
    return NULL;
  return g_strdupv (argv + 4);
}

/* Adds a check; found, fix and fix_nm are taken (fix NULL: nothing to do). */
static void
add (NetAudit      *audit,
     const char    *id,
     const char    *title,
     QfAuditStatus  status,
     char          *found,
     const char    *recommended,
     const char    *advice,
     char          *fix,
     char          *fix_nm)
{
  QfNetAuditCheck *check = g_new0 (QfNetAuditCheck, 1);

  check->id = g_strdup (id);
  check->title = g_strdup (title);
  check->status = status;
  check->found = found != NULL ? found : g_strdup (_("unknown"));
  check->recommended = g_strdup (recommended);
  check->advice = g_strdup (advice);
  check->fix = fix != NULL ? fix : g_strdup ("");
  check->fix_nm = fix_nm;
  check->nm_settings = modify_settings (fix_nm);
  g_ptr_array_add (audit->checks, check);
}

static void
add_not_reported (NetAudit   *audit,
                  const char *id,
                  const char *title,
                  const char *recommended)
{
  add (audit, id, title, QF_AUDIT_UNKNOWN, g_strdup (_("not reported by this card")), recommended,
       _("The card’s driver does not report this setting, so Qualify cannot say how it is set."),
       NULL, NULL);
}

/* "nmcli connection modify ID SETTINGS", or NULL without a connection. */
static char *
nm_modify (NetAudit   *audit,
           const char *settings)
{
  if (audit->con == NULL)
    return NULL;
  return g_strdup_printf ("nmcli connection modify %s %s", audit->con, settings);
}

static char *
net_read (NetAudit   *audit,
          const char *attribute)
{
  g_autofree char *path = g_build_filename ("sys/class/net", audit->iface, attribute, NULL);

  return qf_sysfs_read_string (audit->root, path);
}

/* ---------------------------------------------------------------- link */

/* The kernel's carrier flag: TRUE with a link. An interface that is down reports no carrier
 * (the file cannot be read then), so that counts as no link too; operstate is not used, since
 * drivers without link detection report "unknown" there while they carry traffic. */
static gboolean
has_carrier (NetAudit *audit)
{
  g_autofree char *carrier = net_read (audit, "carrier");

  return g_strcmp0 (carrier, "1") == 0;
}

static void
check_link_speed (NetAudit *audit)
{
  const char *title = _("Link speed");
  const char *recommended = _("1000 Mbit/s or faster");
  gint64 speed = audit->nic->speed_mbps;
  QfAuditStatus status;

  if (!audit->nic->have_link)
    {
      add_not_reported (audit, "link-speed", title, recommended);
      return;
    }
  if (speed < 0 && has_carrier (audit))
    {
      add_not_reported (audit, "link-speed", title, recommended);
      return;
    }
  if (speed < 0)
    {
      add (audit, "link-speed", title, QF_AUDIT_WARN, g_strdup (_("no link")), recommended,
           _("The card has no link: the cable is unplugged or the other end is off."),
           g_strdup_printf ("ip link set dev %s up", audit->word), NULL);
      return;
    }
  status = speed >= 1000 ? QF_AUDIT_OK : speed >= 100 ? QF_AUDIT_WARN : QF_AUDIT_FAIL;
  add (audit, "link-speed", title, status, g_strdup_printf (_("%lld Mbit/s"), (long long) speed),
       recommended,
       status == QF_AUDIT_OK
         ? _("The link is fast enough that a frame spends little time on the wire.")
         : _("The link negotiated a low speed: every frame takes longer on the wire and the "
             "bandwidth test cannot pass. Use a Cat 5e or better cable with all eight wires and "
             "a gigabit port at the other end; `ethtool IFACE` shows what both ends offer."),
       status == QF_AUDIT_OK ? NULL : g_strdup_printf ("ethtool %s", audit->word), NULL);
}

static void
check_duplex (NetAudit *audit)
{
  const char *title = _("Duplex and autonegotiation");
  const char *recommended = _("full duplex, autonegotiation on");
  const QfNicFacts *nic = audit->nic;
  g_autofree char *found = NULL;
  const char *advice;
  QfAuditStatus status;

  if (!has_carrier (audit))
    {
      add (audit, "duplex", title, QF_AUDIT_UNKNOWN, g_strdup (_("no link")), recommended,
           _("Duplex is settled when the link comes up; the card has no link now, so there is "
             "nothing to read. Plug the cable in and check again."),
           NULL, NULL);
      return;
    }
  if (!nic->have_link || nic->full_duplex < 0)
    {
      add_not_reported (audit, "duplex", title, recommended);
      return;
    }
  /* TRANSLATORS: "full duplex, autonegotiation on" */
  found = g_strdup_printf (_("%s, autonegotiation %s"),
                           nic->full_duplex ? _("full duplex") : _("half duplex"),
                           nic->autoneg == 1 ? _("on") : nic->autoneg == 0 ? _("off") : _("not reported"));
  if (!nic->full_duplex)
    {
      status = QF_AUDIT_FAIL;
      advice = _("Half duplex: the two ends take turns and collide, which adds delay and loses "
                 "frames. Turn autonegotiation on at both ends.");
    }
  else if (nic->autoneg == 0 && !audit->is_virtual)
    {
      status = QF_AUDIT_WARN;
      advice = _("The speed is fixed by hand. If the other end still negotiates it falls back to "
                 "half duplex; turn autonegotiation on at both ends.");
    }
  else
    {
      status = QF_AUDIT_OK;
      advice = _("Both directions run at once, so frames never wait for each other.");
    }
  add (audit, "duplex", title, status, g_steal_pointer (&found), recommended, advice,
       status == QF_AUDIT_OK ? NULL : g_strdup_printf ("ethtool -s %s autoneg on", audit->word),
       status == QF_AUDIT_OK ? NULL : nm_modify (audit, "802-3-ethernet.auto-negotiate yes"));
}

static void
check_eee (NetAudit *audit)
{
  const char *title = _("Energy-Efficient Ethernet");
  const char *recommended = _("off");
  const QfNicFacts *nic = audit->nic;

  if (!nic->have_eee)
    add_not_reported (audit, "eee", title, recommended);
  else if (!nic->eee_supported)
    add (audit, "eee", title, QF_AUDIT_OK, g_strdup (_("not supported by this card")), recommended,
         _("The link never sleeps between frames."), NULL, NULL);
  else if (nic->eee_enabled)
    add (audit, "eee", title, QF_AUDIT_WARN,
         g_strdup (nic->eee_active ? _("on, active on the link") : _("on, not active on the link")),
         recommended,
         _("Energy-Efficient Ethernet lets the link sleep between frames; waking it adds up to "
           "tens of microseconds to the first frame after a pause, which is every control "
           "message. Turn it off. NetworkManager 1.42 cannot hold this setting: make it "
           "permanent with a udev rule running the same command."),
         g_strdup_printf ("ethtool --set-eee %s eee off", audit->word), NULL);
  else
    add (audit, "eee", title, QF_AUDIT_OK, g_strdup (_("off")), recommended,
         _("The link never sleeps between frames."), NULL, NULL);
}

static void
check_coalescing (NetAudit *audit)
{
  const char *title = _("Interrupt coalescing");
  const QfNicFacts *nic = audit->nic;
  const char *recommended = _("adaptive off, rx-usecs 0 (at most 10)");
  g_autofree char *found = NULL;
  gboolean holds;

  if (!nic->have_coalesce)
    {
      add_not_reported (audit, "coalescing", title, recommended);
      return;
    }
  /* The ioctl fills the fields a driver does not support with zeros, so all zeros with adaptive
   * moderation off cannot be told from a card that reports nothing: never an OK from it. */
  if (nic->rx_usecs == 0 && nic->rx_frames == 0 && nic->tx_usecs == 0 && nic->tx_frames == 0
      && !nic->adaptive_rx && !nic->adaptive_tx)
    {
      add (audit, "coalescing", title, QF_AUDIT_UNKNOWN, g_strdup (_("not reported by this card")),
           recommended,
           _("The driver answers with every coalescing value at zero, which is also what it "
             "answers when it does not support them, so Qualify cannot say how it is set. "
             "`ethtool -c IFACE` shows the same values."),
           NULL, NULL);
      return;
    }
  /* TRANSLATORS: "rx 3 µs / 0 frames, tx 0 µs / 0 frames, adaptive rx off, tx off" */
  found = g_strdup_printf (_("rx %u µs / %u frames, tx %u µs / %u frames, adaptive rx %s, tx %s"),
                           nic->rx_usecs, nic->rx_frames, nic->tx_usecs, nic->tx_frames,
                           nic->adaptive_rx ? _("on") : _("off"), nic->adaptive_tx ? _("on") : _("off"));
  holds = nic->adaptive_rx || nic->rx_usecs > COALESCE_RX_USECS_MAX;
  if (!holds)
    {
      add (audit, "coalescing", title, QF_AUDIT_OK, g_steal_pointer (&found), recommended,
           _("The card tells the CPU about a received frame at once."), NULL, NULL);
      return;
    }
  add (audit, "coalescing", title, QF_AUDIT_WARN, g_steal_pointer (&found), recommended,
       _("The card waits to gather several frames before it interrupts the CPU, so each reply "
         "sits in the card for that long; adaptive moderation changes the wait with the load, "
         "which makes the figures vary. Turn adaptive moderation off and rx-usecs down."),
       g_strdup_printf ("ethtool -C %s%s rx-usecs 0", audit->word,
                        nic->adaptive_rx ? " adaptive-rx off" : ""),
       nm_modify (audit, nic->adaptive_rx ? "ethtool.coalesce-adaptive-rx 0 ethtool.coalesce-rx-usecs 0"
                                          : "ethtool.coalesce-rx-usecs 0"));
}

/* Receive batching features, in the order the audit lists them. */
static const QfNetBatchingFeature batching[] = {
  { "rx-gro", "gro", "ethtool.feature-gro", N_("GRO") },
  { "rx-lro", "lro", "ethtool.feature-lro", N_("LRO") },
  { "rx-gro-hw", "rx-gro-hw", "ethtool.feature-rx-gro-hw", N_("hardware GRO") },
  { "rx-gro-list", "rx-gro-list", "ethtool.feature-rx-gro-list", N_("GRO list") },
};

const QfNetBatchingFeature *
qf_net_audit_batching_features (guint *n_features)
{
  g_return_val_if_fail (n_features != NULL, NULL);
  *n_features = G_N_ELEMENTS (batching);
  return batching;
}

static void
check_gro (NetAudit *audit)
{
  const char *title = _("Receive batching (GRO, LRO)");
  const char *recommended = _("off");
  g_autoptr(GString) found = g_string_new (NULL);
  g_autoptr(GString) fix = NULL;
  g_autoptr(GString) fix_nm = NULL;
  gboolean any_on = FALSE;

  if (audit->nic->features == NULL)
    {
      add_not_reported (audit, "gro", title, recommended);
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (batching); i++)
    {
      const char *state = qf_nic_facts_feature (audit->nic, batching[i].kernel);

      if (state == NULL)
        continue;
      gboolean on = g_str_has_prefix (state, "on");
      gboolean fixed = strstr (state, "[fixed]") != NULL;

      g_string_append_printf (found, "%s%s %s%s", found->len ? ", " : "", _(batching[i].label),
                              on ? _("on") : _("off"), fixed ? _(" (fixed by the driver)") : "");
      if (!on)
        continue;
      any_on = TRUE;
      if (fixed)
        continue;
      if (fix == NULL)
        {
          fix = g_string_new (NULL);
          g_string_printf (fix, "ethtool -K %s", audit->word);
          fix_nm = g_string_new (NULL);
        }
      g_string_append_printf (fix, " %s off", batching[i].ethtool);
      g_string_append_printf (fix_nm, "%s%s off", fix_nm->len ? " " : "", batching[i].nm);
    }
  if (found->len == 0)
    g_string_append (found, _("not reported by this card"));
  if (!any_on)
    add (audit, "gro", title, QF_AUDIT_OK, g_string_free (g_steal_pointer (&found), FALSE), recommended,
         _("Received packets go up the stack one by one, as they arrive."), NULL, NULL);
  else
    add (audit, "gro", title, QF_AUDIT_WARN, g_string_free (g_steal_pointer (&found), FALSE),
         recommended,
         _("The card or the kernel holds received packets back to merge them into larger ones. "
           "That saves CPU on bulk transfers, but a small control message may wait for the batch "
           "to close. Turn receive batching off on the controller’s link."),
         fix != NULL ? g_string_free (g_steal_pointer (&fix), FALSE) : NULL,
         fix_nm != NULL ? nm_modify (audit, fix_nm->str) : NULL);
}

/* ---------------------------------------------------------------- interrupts and queues */

static GArray *
cpus_new (void)
{
  return g_array_new (FALSE, FALSE, sizeof (int));
}

/* "00000000,0000000f" (a kernel CPU mask) → sorted CPU numbers; NULL when unreadable. */
static GArray *
mask_to_cpus (const char *mask)
{
  GArray *cpus;
  int bit = 0;

  if (mask == NULL)
    return NULL;
  cpus = cpus_new ();
  for (gssize i = (gssize) strlen (mask) - 1; i >= 0; i--)
    {
      int nibble;

      if (mask[i] == ',')
        continue;
      nibble = g_ascii_xdigit_value (mask[i]);
      if (nibble < 0)
        {
          g_array_unref (cpus);
          return NULL;
        }
      for (int b = 0; b < 4; b++, bit++)
        if (nibble & (1 << b))
          {
            int cpu = bit;
            g_array_append_val (cpus, cpu);
          }
    }
  return cpus;
}

static gint
int_compare (gconstpointer a,
             gconstpointer b)
{
  return *(const int *) a - *(const int *) b;
}

/* Sorted CPU numbers → "0-3,6", "" when empty: locale-free, for commands as well as text. */
static char *
cpus_to_list (GArray *cpus)
{
  GString *text = g_string_new (NULL);

  g_array_sort (cpus, int_compare);
  for (guint i = 0; i < cpus->len;)
    {
      int first = g_array_index (cpus, int, i), last = first;
      guint j = i + 1;

      while (j < cpus->len && g_array_index (cpus, int, j) == last + 1)
        last = g_array_index (cpus, int, j++);
      if (text->len)
        g_string_append_c (text, ',');
      if (last > first)
        g_string_append_printf (text, "%d-%d", first, last);
      else
        g_string_append_printf (text, "%d", first);
      i = j;
    }
  return g_string_free (text, FALSE);
}

/* CPUs → the hex mask the kernel writes ("c"). */
static char *
cpus_to_mask (GArray *cpus)
{
  guint64 mask = 0;

  for (guint i = 0; i < cpus->len; i++)
    if (g_array_index (cpus, int, i) < 64)
      mask |= G_GUINT64_CONSTANT (1) << g_array_index (cpus, int, i);
  return g_strdup_printf ("%" G_GINT64_MODIFIER "x", mask);
}

static gboolean
cpus_overlap (GArray *a,
              GArray *b)
{
  for (guint i = 0; a != NULL && i < a->len; i++)
    for (guint j = 0; b != NULL && j < b->len; j++)
      if (g_array_index (a, int, i) == g_array_index (b, int, j))
        return TRUE;
  return FALSE;
}

/* The CPUs isolated for real-time work: /sys/devices/system/cpu/isolated, else isolcpus= (its
 * flags such as "managed_irq,domain," skipped). Empty when none. */
static GArray *
isolated_cpus (NetAudit *audit)
{
  g_autofree char *isolated = qf_sysfs_read_string (audit->root, "sys/devices/system/cpu/isolated");
  g_autofree char *cmdline = NULL;
  g_auto(GStrv) words = NULL;
  GArray *cpus = NULL;

  if (isolated != NULL && *isolated != '\0')
    cpus = qf_cpu_list_parse (isolated, NULL);
  if (cpus != NULL)
    return cpus;
  cmdline = qf_sysfs_read_string (audit->root, "proc/cmdline");
  words = g_strsplit_set (cmdline != NULL ? cmdline : "", " \t\n", -1);
  for (guint i = 0; words[i] != NULL; i++)
    {
      const char *list;

      if (!g_str_has_prefix (words[i], "isolcpus="))
        continue;
      list = words[i] + strlen ("isolcpus=");
      while (g_ascii_isalpha (*list))
        list = strchr (list, ',') != NULL ? strchr (list, ',') + 1 : list + strlen (list);
      g_clear_pointer (&cpus, g_array_unref);
      cpus = qf_cpu_list_parse (list, NULL);
    }
  return cpus != NULL ? cpus : cpus_new ();
}

/* The card's IRQ numbers: its MSI vectors, else /proc/interrupts lines naming the interface. */
static GArray *
card_irqs (NetAudit *audit)
{
  g_autofree char *msi = g_build_filename (audit->root, "sys/class/net", audit->iface, "device/msi_irqs", NULL);
  g_autoptr(GDir) dir = g_dir_open (msi, 0, NULL);
  g_autofree char *interrupts = NULL;
  g_auto(GStrv) lines = NULL;
  GArray *irqs = cpus_new ();
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      int irq = (int) g_ascii_strtoll (name, NULL, 10);
      g_array_append_val (irqs, irq);
    }
  if (irqs->len > 0)
    {
      g_array_sort (irqs, int_compare);
      return irqs;
    }
  interrupts = qf_sysfs_read_string (audit->root, "proc/interrupts");
  lines = g_strsplit (interrupts != NULL ? interrupts : "", "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = g_strsplit_set (g_strstrip (lines[i]), " \t", -1);
      guint n = g_strv_length (fields);
      const char *last = n > 0 ? fields[n - 1] : "";
      gsize len = strlen (audit->iface);

      if (n > 1 && g_ascii_isdigit (*fields[0]) && strncmp (last, audit->iface, len) == 0
          && (last[len] == '\0' || last[len] == '-' || last[len] == '@'))
        {
          int irq = (int) g_ascii_strtoll (fields[0], NULL, 10);
          g_array_append_val (irqs, irq);
        }
    }
  return irqs;
}

typedef struct
{
  GString *found;
  GString *fix;
  gboolean overlap;
  gboolean any;       /* an IRQ or a queue mask was read */
} Affinity;

static void
affinity_irqs (NetAudit *audit,
               GArray   *isolated,
               GArray   *housekeeping,
               Affinity *out)
{
  g_autoptr(GArray) irqs = card_irqs (audit);
  g_autofree char *keep = cpus_to_list (housekeeping);

  for (guint i = 0; i < irqs->len; i++)
    {
      int irq = g_array_index (irqs, int, i);
      g_autofree char *path = g_strdup_printf ("proc/irq/%d/smp_affinity_list", irq);
      g_autofree char *list = qf_sysfs_read_string (audit->root, path);
      g_autoptr(GArray) cpus = list != NULL ? qf_cpu_list_parse (list, NULL) : NULL;
      g_autofree char *shown = cpus == NULL ? g_strdup (_("unknown"))
                               : cpus->len > 0 ? cpus_to_list (cpus) : g_strdup (_("none"));

      out->any = TRUE;
      /* TRANSLATORS: "IRQ 45 on CPUs 0-3" */
      g_string_append_printf (out->found, _("%sIRQ %d on CPUs %s"), out->found->len ? "; " : "", irq, shown);
      if (cpus_overlap (cpus, isolated))
        out->overlap = TRUE;
      /* no command without a CPU to move it to */
      if (cpus_overlap (cpus, isolated) && housekeeping->len > 0)
        {
          g_string_append_printf (out->fix, "%secho %s > /proc/irq/%d/smp_affinity_list",
                                  out->fix->len ? "\n" : "", keep, irq);
        }
    }
}

static void
affinity_queues (NetAudit   *audit,
                 const char *prefix,  /* "rx-" or "tx-" */
                 const char *file,    /* "rps_cpus" or "xps_cpus" */
                 const char *label,
                 GArray     *isolated,
                 GArray     *housekeeping,
                 Affinity   *out)
{
  g_autofree char *queues = g_build_filename (audit->root, "sys/class/net", audit->iface, "queues", NULL);
  g_autoptr(GDir) dir = g_dir_open (queues, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *keep = cpus_to_mask (housekeeping);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_prefix (name, prefix))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
  for (guint i = 0; i < names->len; i++)
    {
      const char *queue = g_ptr_array_index (names, i);
      g_autofree char *path = g_build_filename ("sys/class/net", audit->iface, "queues", queue, file, NULL);
      g_autofree char *mask = qf_sysfs_read_string (audit->root, path);
      g_autoptr(GArray) cpus = mask_to_cpus (mask);
      g_autofree char *shown = NULL;

      if (cpus == NULL)
        continue;
      out->any = TRUE;
      shown = cpus->len > 0 ? cpus_to_list (cpus) : g_strdup (_("off"));
      /* TRANSLATORS: "RPS rx-0 on CPUs 2-3" / "XPS tx-0 on CPUs off" */
      g_string_append_printf (out->found, _("%s%s %s: %s"), out->found->len ? "; " : "", label, queue, shown);
      if (cpus_overlap (cpus, isolated))
        out->overlap = TRUE;
      if (cpus_overlap (cpus, isolated) && housekeeping->len > 0)
        {
          g_autofree char *target = g_build_filename ("/sys/class/net", audit->iface, "queues",
                                                      queue, file, NULL);
          g_autofree char *target_word = qf_text_shell_word (target);

          g_string_append_printf (out->fix, "%secho %s > %s", out->fix->len ? "\n" : "", keep,
                                  target_word);
        }
    }
}

static GArray *
online_minus (NetAudit *audit,
              GArray   *isolated)
{
  g_autofree char *online = qf_sysfs_read_string (audit->root, "sys/devices/system/cpu/online");
  g_autoptr(GArray) all = online != NULL ? qf_cpu_list_parse (online, NULL) : NULL;
  GArray *keep = cpus_new ();

  for (guint i = 0; all != NULL && i < all->len; i++)
    {
      int cpu = g_array_index (all, int, i);
      gboolean iso = FALSE;

      for (guint j = 0; j < isolated->len && !iso; j++)
        iso = g_array_index (isolated, int, j) == cpu;
      if (!iso)
        g_array_append_val (keep, cpu);
    }
  return keep;
}

static void
check_irq_affinity (NetAudit *audit)
{
  const char *title = _("Interrupt and receive CPUs");
  g_autoptr(GArray) isolated = isolated_cpus (audit);
  g_autoptr(GArray) housekeeping = online_minus (audit, isolated);
  g_autofree char *iso_list = cpus_to_list (isolated);
  g_autofree char *recommended = NULL;
  Affinity a = { g_string_new (NULL), g_string_new (NULL), FALSE, FALSE };

  affinity_irqs (audit, isolated, housekeeping, &a);
  affinity_queues (audit, "rx-", "rps_cpus", "RPS", isolated, housekeeping, &a);
  affinity_queues (audit, "tx-", "xps_cpus", "XPS", isolated, housekeeping, &a);
  if (!a.any)
    g_string_append (a.found, _("no interrupts or queues of its own found"));
  if (isolated->len > 0)
    g_string_append_printf (a.found, _("; isolated CPUs %s"), iso_list);
  recommended = isolated->len > 0
    /* TRANSLATORS: %s is a CPU list such as "2-3" */
    ? g_strdup_printf (_("none on the isolated CPUs %s"), iso_list)
    : g_strdup (_("none on the CPUs isolated for real-time work"));

  if (a.overlap)
    add (audit, "irq-affinity", title, QF_AUDIT_WARN, g_string_free (a.found, FALSE), recommended,
         housekeeping->len > 0
           ? _("The card’s interrupts or receive work land on a CPU kept for the real-time task, "
               "which then stops to handle network traffic. Move them to the other CPUs (stop "
               "irqbalance first, or ban the isolated CPUs in it). NetworkManager cannot hold these "
               "settings: make them permanent with a udev rule or a systemd unit.")
           : _("The card’s interrupts or receive work land on a CPU kept for the real-time task, "
               "and every online CPU is isolated, so there is none to move them to. Leave at least "
               "one CPU out of the isolated list for the system and the network card."),
         g_string_free (a.fix, FALSE), NULL);
  else
    {
      add (audit, "irq-affinity", title, QF_AUDIT_OK, g_string_free (a.found, FALSE), recommended,
           isolated->len > 0
             ? _("The card’s interrupts and receive work stay off the CPUs isolated for real-time work.")
             : _("No CPU is isolated for real-time work, so there is nothing to keep the card’s "
                 "interrupts away from; the real-time audit says how to isolate one."),
           NULL, NULL);
      g_string_free (a.fix, TRUE);
    }
}

/* ---------------------------------------------------------------- MTU and the path */

static gboolean
ping_once (const char *iface,
           const char *peer,  /* a numeric address of the family v6 says */
           gboolean    v6,
           gint        size)  /* -1: default size, fragmenting allowed */
{
  g_autofree char *ping = g_find_program_in_path ("ping");
  g_autofree char *size_text = g_strdup_printf ("%d", size);
  const char *argv[16];
  guint n = 0;
  gint status = 0;

  if (ping == NULL)
    return FALSE;
  argv[n++] = ping;
  argv[n++] = v6 ? "-6" : "-4";
  argv[n++] = "-n";
  argv[n++] = "-q";
  argv[n++] = "-c";
  argv[n++] = "1";
  argv[n++] = "-W";
  argv[n++] = PING_TIMEOUT_S;
  argv[n++] = "-I";
  argv[n++] = iface;
  if (size >= 0)
    {
      argv[n++] = "-M";
      argv[n++] = "do";
      argv[n++] = "-s";
      argv[n++] = size_text;
    }
  argv[n++] = peer;
  argv[n] = NULL;
  return g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                       NULL, NULL, NULL, NULL, &status, NULL)
         && g_spawn_check_wait_status (status, NULL);
}

/* The peer (an address or a host name) resolved to the numeric address ping is given, without
 * a "%iface" scope (the interface is given with -I), and its family; NULL when it does not
 * resolve. The family decides the header size, never the way the peer was written. */
static char *
resolve_peer (const char *peer,
              gboolean   *v6)
{
  struct addrinfo hints = { .ai_socktype = SOCK_DGRAM };
  struct addrinfo *found = NULL;
  char host[NI_MAXHOST];
  char *address = NULL;

  if (getaddrinfo (peer, NULL, &hints, &found) != 0 || found == NULL)
    return NULL;
  if (getnameinfo (found->ai_addr, found->ai_addrlen, host, sizeof host, NULL, 0, NI_NUMERICHOST) == 0)
    {
      *v6 = found->ai_family == AF_INET6;
      address = g_strndup (host, strcspn (host, "%"));
    }
  freeaddrinfo (found);
  return address;
}

/* 1 the path carries mtu bytes unfragmented, 0 it does not (a small ping passes), -1 unknown. */
static gint
probe_path (NetAudit *audit,
            gint64    mtu)
{
  const char *peer = audit->config->peer;
  gboolean v6 = FALSE;
  g_autofree char *address = NULL;

  if (peer == NULL || !(audit->root == NULL || g_str_equal (audit->root, "/")))
    return -1;
  address = resolve_peer (peer, &v6);
  if (address == NULL)
    return -1;
  /* the payload that fills the MTU: less the IPv6 (40) or IPv4 (20) header and ICMP's 8 */
  if (ping_once (audit->iface, address, v6, (gint) mtu - (v6 ? 48 : 28)))
    return 1;
  return ping_once (audit->iface, address, v6, -1) ? 0 : -1;
}

static void
check_mtu (NetAudit *audit)
{
  const char *title = _("MTU and the path to the peer");
  g_autofree char *text = net_read (audit, "mtu");
  gint64 mtu = text != NULL ? g_ascii_strtoll (text, NULL, 10) : 0;
  g_autofree char *recommended = NULL;
  const char *nm_key = audit->wireless ? "802-11-wireless.mtu" : "802-3-ethernet.mtu";
  g_autofree char *nm_set = g_strdup_printf ("%s 1500", nm_key);
  gint path;

  if (mtu <= 0)
    {
      add (audit, "mtu", title, QF_AUDIT_UNKNOWN, NULL, _("1500, the same at both ends"),
           _("The interface’s MTU could not be read."), NULL, NULL);
      return;
    }
  path = probe_path (audit, mtu);
  recommended = g_strdup_printf (_("%lld bytes carried unfragmented to the peer"), (long long) MAX (mtu, 1500));
  if (path == 0)
    add (audit, "mtu", title, QF_AUDIT_FAIL,
         g_strdup_printf (_("%lld bytes; the path to the peer does not carry them unfragmented"), (long long) mtu),
         recommended,
         _("Full-size frames are dropped or must be split on the way to the peer: large "
           "messages and the bandwidth test stall. Set the same MTU at both ends and on every "
           "switch between them, or go back to 1500."),
         g_strdup_printf ("ip link set dev %s mtu 1500", audit->word), nm_modify (audit, nm_set));
  else if (mtu < 1280)
    add (audit, "mtu", title, QF_AUDIT_WARN, g_strdup_printf (_("%lld bytes"), (long long) mtu), recommended,
         _("An MTU below 1280 bytes splits ordinary messages and rules out IPv6."),
         g_strdup_printf ("ip link set dev %s mtu 1500", audit->word), nm_modify (audit, nm_set));
  else if (path == 1)
    add (audit, "mtu", title, QF_AUDIT_OK,
         g_strdup_printf (_("%lld bytes; the path to the peer carries them unfragmented"), (long long) mtu),
         recommended, _("Full-size frames reach the peer whole."), NULL, NULL);
  else
    add (audit, "mtu", title, mtu > 1500 ? QF_AUDIT_WARN : QF_AUDIT_OK,
         g_strdup_printf (_("%lld bytes; the path to the peer was not checked (no peer, or it did "
                            "not answer ping)"), (long long) mtu),
         recommended,
         mtu > 1500
           ? _("Jumbo frames only work when the peer and every switch between carry them too; "
               "otherwise large messages are lost. Choose the peer so Qualify can check the path.")
           : _("The standard Ethernet MTU, which every device carries."),
         NULL, NULL);
}

/* ---------------------------------------------------------------- NetworkManager connection */

static const char *
metered_word (NMMetered metered)
{
  switch (metered)
    {
    case NM_METERED_YES:
    case NM_METERED_GUESS_YES:
      return _("yes");
    case NM_METERED_NO:
    case NM_METERED_GUESS_NO:
      return _("no");
    case NM_METERED_UNKNOWN:
    default:
      return _("unknown");
    }
}

static char *
ip_found (NetAudit   *audit,
          const char *method4,
          const char *method6)
{
  NMSettingConnection *s_con = nm_connection_get_setting_connection (audit->nm->connection);
  const char *lease = audit->nm->dhcp4_lease == 1 ? _(" (DHCP lease held)")
                    : audit->nm->dhcp4_lease == 0 ? _(" (no DHCP lease)") : "";

  /* TRANSLATORS: "connection “Wired 1”: IPv4 auto (no DHCP lease), IPv6 auto; connects by
   * itself: yes; metered: no" */
  return g_strdup_printf (_("connection “%s”: IPv4 %s%s, IPv6 %s; connects by itself: %s; metered: %s"),
                          audit->con_shown, method4,
                          g_str_equal (method4, "auto") ? lease : "", method6,
                          s_con != NULL && nm_setting_connection_get_autoconnect (s_con) ? _("yes") : _("no"),
                          metered_word (s_con != NULL ? nm_setting_connection_get_metered (s_con) : NM_METERED_UNKNOWN));
}

/* A connection of its own for the interface, named after it. */
static char *
new_connection_command (NetAudit *audit)
{
  g_autofree char *name = g_strconcat ("qualify-", audit->iface, NULL);
  g_autofree char *name_word = qf_text_shell_word (name);

  return g_strdup_printf ("nmcli connection add type ethernet ifname %s con-name %s "
                          "ipv4.method link-local ipv6.method link-local", audit->word, name_word);
}

static void
check_ip_method (NetAudit *audit)
{
  const char *title = _("Address method (NetworkManager)");
  const char *recommended = _("manual or link-local addresses on a direct cable; DHCP only "
                              "with a DHCP server on the network; connects by itself");
  NMSettingIPConfig *s4, *s6;
  NMSettingConnection *s_con;
  const char *m4, *m6;
  char *link_local = nm_modify (audit, "ipv4.method link-local ipv6.method link-local");

  if (audit->nm == NULL)
    {
      g_free (link_local);
      add (audit, "ip-method", title, QF_AUDIT_UNKNOWN,
           g_strdup (audit->config->nm_asked ? _("NetworkManager is not running; the addresses are set elsewhere")
                                             : _("NetworkManager was not asked")),
           recommended,
           audit->config->nm_asked
             ? _("Without NetworkManager Qualify cannot say how the interface gets its address.")
             : _("This audit did not ask NetworkManager, so it cannot say how the interface gets "
                 "its address; the network page of the wizard asks it."),
           NULL, NULL);
      return;
    }
  if (audit->nm->connection == NULL)
    {
      g_free (link_local);
      add (audit, "ip-method", title, QF_AUDIT_WARN, g_strdup (_("no NetworkManager connection for this interface")),
           recommended, _("Nothing brings this interface up after a reboot. Create a connection for it."),
           NULL,
           new_connection_command (audit));
      return;
    }
  s4 = nm_connection_get_setting_ip4_config (audit->nm->connection);
  s6 = nm_connection_get_setting_ip6_config (audit->nm->connection);
  s_con = nm_connection_get_setting_connection (audit->nm->connection);
  m4 = s4 != NULL && nm_setting_ip_config_get_method (s4) ? nm_setting_ip_config_get_method (s4) : "auto";
  m6 = s6 != NULL && nm_setting_ip_config_get_method (s6) ? nm_setting_ip_config_get_method (s6) : "auto";

  if (g_str_equal (m4, "auto") && audit->nm->dhcp4_lease == 0)
    add (audit, "ip-method", title, QF_AUDIT_FAIL, ip_found (audit, m4, m6), recommended,
         _("The connection waits for an address from DHCP and none came. On a direct cable to "
           "the helper nobody answers, and NetworkManager keeps waiting. Use link-local "
           "addresses (or fixed ones) on a direct link."),
         g_strdup (link_local), link_local);
  else if (g_str_equal (m4, "disabled") && (g_str_equal (m6, "disabled") || g_str_equal (m6, "ignore")))
    add (audit, "ip-method", title, QF_AUDIT_FAIL, ip_found (audit, m4, m6), recommended,
         _("The connection has no IP address at all, so nothing can reach the peer."),
         g_strdup (link_local), link_local);
  else if (s_con != NULL && !nm_setting_connection_get_autoconnect (s_con))
    {
      g_free (link_local);
      link_local = nm_modify (audit, "connection.autoconnect yes");
      add (audit, "ip-method", title, QF_AUDIT_WARN, ip_found (audit, m4, m6), recommended,
           _("The connection does not come up by itself: after a reboot the link stays down until "
             "someone connects it."),
           g_strdup (link_local), link_local);
    }
  else
    {
      g_free (link_local);
      add (audit, "ip-method", title, QF_AUDIT_OK, ip_found (audit, m4, m6), recommended,
           g_str_equal (m4, "auto")
             ? _("Addresses come from DHCP; on a direct cable to the helper use link-local instead.")
             : _("The interface gets its addresses without waiting for a server."),
           NULL, NULL);
    }
}

/* ---------------------------------------------------------------- Wi-Fi */

static const char *
powersave_word (NMSettingWirelessPowersave value)
{
  if (value == NM_SETTING_WIRELESS_POWERSAVE_IGNORE)
    return _("left to the driver");
  if (value == NM_SETTING_WIRELESS_POWERSAVE_DISABLE)
    return _("off");
  if (value == NM_SETTING_WIRELESS_POWERSAVE_ENABLE)
    return _("on");
  return NULL;
}

/* wifi.powersave from NetworkManager's own configuration below root (NetworkManager.conf, then
 * conf.d/ *.conf in name order, a later file winning, as NetworkManager reads them): the value a
 * connection set to "default" takes. -1 when no file sets it; *where: the file that does. */
static gint
nm_conf_powersave (NetAudit  *audit,
                   char     **where)
{
  g_autofree char *dir = g_build_filename (audit->root, "etc/NetworkManager/conf.d", NULL);
  g_autoptr(GDir) conf_d = g_dir_open (dir, 0, NULL);
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  gint value = -1;

  while (conf_d != NULL && (name = g_dir_read_name (conf_d)) != NULL)
    if (g_str_has_suffix (name, ".conf"))
      g_ptr_array_add (files, g_build_filename ("/etc/NetworkManager/conf.d", name, NULL));
  g_ptr_array_sort (files, (GCompareFunc) g_strcmp0);
  g_ptr_array_insert (files, 0, g_strdup ("/etc/NetworkManager/NetworkManager.conf"));
  for (guint i = 0; i < files->len; i++)
    {
      g_autofree char *path = g_build_filename (audit->root, g_ptr_array_index (files, i), NULL);
      g_autoptr(GKeyFile) kf = g_key_file_new ();
      g_auto(GStrv) groups = NULL;

      if (!g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, NULL))
        continue;
      groups = g_key_file_get_groups (kf, NULL);
      for (guint g = 0; groups[g] != NULL; g++)
        {
          g_autofree char *text = NULL;

          if (!g_str_has_prefix (groups[g], "connection"))
            continue;
          text = g_key_file_get_value (kf, groups[g], "wifi.powersave", NULL);
          if (text == NULL)
            continue;
          value = (gint) g_ascii_strtoll (g_strstrip (text), NULL, 10);
          g_free (*where);
          *where = g_strdup (g_ptr_array_index (files, i));
        }
    }
  return value;
}

/* What NetworkManager does with power saving, as text; *effective: its value, the
 * configuration's when the connection says "default" (-1 when not known). */
static char *
nm_powersave_text (NetAudit *audit,
                   gint      nm_value,
                   gint     *effective)
{
  g_autofree char *where = NULL;
  gint conf;

  *effective = nm_value;
  if (nm_value < 0)
    return g_strdup (_("no connection"));
  if (nm_value != NM_SETTING_WIRELESS_POWERSAVE_DEFAULT)
    return g_strdup (powersave_word (nm_value));
  conf = nm_conf_powersave (audit, &where);
  if (conf <= NM_SETTING_WIRELESS_POWERSAVE_DEFAULT || powersave_word (conf) == NULL)
    {
      *effective = -1;
      return g_strdup (_("NetworkManager’s default (wifi.powersave in NetworkManager.conf)"));
    }
  *effective = conf;
  /* TRANSLATORS: "its default, on (wifi.powersave = 3 in /etc/NetworkManager/conf.d/x.conf)" */
  return g_strdup_printf (_("its default, %s (wifi.powersave = %d in %s)"), powersave_word (conf), conf, where);
}

static void
check_wifi_power_save (NetAudit *audit)
{
  const char *title = _("Wi-Fi power saving");
  NMSettingWireless *s_wifi = audit->nm != NULL && audit->nm->connection != NULL
                                ? nm_connection_get_setting_wireless (audit->nm->connection) : NULL;
  gint nm_value = -1;
  g_autofree char *nm_text = nm_powersave_text (audit, s_wifi != NULL ? (gint) nm_setting_wireless_get_powersave (s_wifi) : -1,
                                                &nm_value);
  gint driver = audit->nic->wifi_power_save;
  QfAuditStatus status;
  /* TRANSLATORS: "NetworkManager: on; driver: on" */
  char *found = g_strdup_printf (_("NetworkManager: %s; driver: %s"), nm_text,
                                 driver == 1 ? _("on") : driver == 0 ? _("off")
                                 : audit->nic->iw_missing ? _("iw is not installed")
                                 : _("not reported by this card"));
  char *fix = NULL;

  if (driver == 1 || (driver < 0 && nm_value == NM_SETTING_WIRELESS_POWERSAVE_ENABLE))
    status = QF_AUDIT_WARN;
  else if (driver == 0 || nm_value == NM_SETTING_WIRELESS_POWERSAVE_DISABLE)
    status = QF_AUDIT_OK;
  else
    status = QF_AUDIT_UNKNOWN;
  if (status != QF_AUDIT_OK)
    fix = g_strdup_printf ("%siw dev %s set power_save off", audit->nic->iw_missing ? "apt install iw\n" : "",
                           audit->word);
  add (audit, "wifi-power-save", title, status, found, _("off"),
       status == QF_AUDIT_OK ? _("The radio stays awake, so frames are delivered at once.")
         : audit->nic->iw_missing && driver < 0
         ? _("With power saving on, the access point holds frames for the sleeping radio until "
             "the next beacon, about a tenth of a second later. The driver’s own state is read "
             "with the iw program, which is not installed: install it (apt install iw) and check "
             "again, and turn power saving off.")
         : _("With power saving on, the access point holds frames for the sleeping radio until "
             "the next beacon, about a tenth of a second later. Turn it off."),
       fix, status == QF_AUDIT_OK ? NULL : nm_modify (audit, "802-11-wireless.powersave 2"));
}

static void
check_wifi_link (NetAudit *audit)
{
  const char *title = _("Wi-Fi band, width, rate and signal");
  /* xgettext:no-c-format — "% o" here is a percent sign, not a conversion */
  const char *recommended = _("5 GHz or 6 GHz, 40 MHz or wider, signal 50 % or better");
  guint32 freq = audit->nm != NULL ? audit->nm->frequency_mhz : 0;
  gint strength = audit->nm != NULL ? audit->nm->strength_pct : -1;
  const char *width = audit->nic->wifi_width;
  const char *band = freq == 0 ? NULL : freq < 3000 ? "2.4 GHz" : freq < 5925 ? "5 GHz" : "6 GHz";
  g_autoptr(GString) found = g_string_new (NULL);
  gboolean weak;

  if (band == NULL)
    {
      add (audit, "wifi-link", title, QF_AUDIT_UNKNOWN, g_strdup (_("not connected to an access point")),
           recommended, _("Band, rate and signal are only known while connected."), NULL, NULL);
      return;
    }
  g_string_printf (found, "%s (%u MHz)", band, freq);
  g_string_append_printf (found, _(", width %s"), width != NULL ? width
                          : audit->nic->iw_missing ? _("iw is not installed") : _("not reported by this card"));
  if (audit->nm->bitrate_kbps > 0)
    g_string_append_printf (found, _(", %u Mbit/s"), audit->nm->bitrate_kbps / 1000);
  if (strength >= 0)
    g_string_append_printf (found, _(", signal %d %%"), strength);
  weak = freq < 3000 || (strength >= 0 && strength < WIFI_SIGNAL_MIN_PCT)
         || (width != NULL && g_str_has_prefix (width, "20 "));
  add (audit, "wifi-link", title, weak ? QF_AUDIT_WARN : QF_AUDIT_OK,
       g_string_free (g_steal_pointer (&found), FALSE), recommended,
       weak ? _("The 2.4 GHz band is crowded, a narrow channel is slow and a weak signal makes "
                "the radio repeat frames: each adds delay that varies. Move closer to the "
                "access point and use its 5 GHz network.")
            : _("A good radio link; a cable is still steadier."),
       NULL, weak && freq < 3000 ? nm_modify (audit, "802-11-wireless.band a") : NULL);
}

/* ---------------------------------------------------------------- run */

static gboolean
is_wireless (NetAudit *audit)
{
  g_autofree char *w = g_build_filename (audit->root, "sys/class/net", audit->iface, "wireless", NULL);
  g_autofree char *p = g_build_filename (audit->root, "sys/class/net", audit->iface, "phy80211", NULL);

  if (g_file_test (w, G_FILE_TEST_EXISTS) || g_file_test (p, G_FILE_TEST_EXISTS))
    return TRUE;
  return audit->nm != NULL && audit->nm->connection != NULL
         && nm_connection_is_type (audit->nm->connection, NM_SETTING_WIRELESS_SETTING_NAME);
}

GPtrArray *
qf_net_audit_run (const QfNetAuditConfig *config,
                  GError                **error)
{
  g_autoptr(GPtrArray) checks = g_ptr_array_new_with_free_func ((GDestroyNotify) qf_net_audit_check_free);
  g_autofree char *dir = NULL;
  g_autofree char *device = NULL;
  NetAudit audit = { 0 };

  g_return_val_if_fail (config != NULL && config->iface != NULL, NULL);
  audit.config = config;
  audit.root = config->root != NULL ? config->root : "/";
  audit.iface = config->iface;
  audit.nm = config->nm;
  audit.checks = checks;
  dir = g_build_filename (audit.root, "sys/class/net", config->iface, NULL);
  if (strchr (config->iface, '/') != NULL || !g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_autofree char *shown = qf_text_clean (config->iface, -1);

      g_set_error (error, QF_NET_AUDIT_ERROR, QF_NET_AUDIT_ERROR_NO_IFACE,
                   _("there is no network interface “%s” (see “ip link”)"), shown);
      return NULL;
    }
  device = g_build_filename (dir, "device", NULL);
  audit.is_virtual = !g_file_test (device, G_FILE_TEST_EXISTS);
  audit.wireless = is_wireless (&audit);
  audit.nic = qf_nic_facts_read (audit.root, audit.iface);
  audit.word = qf_text_shell_word (audit.iface);
  if (audit.nm != NULL && audit.nm->connection_id != NULL)
    {
      audit.con = qf_text_shell_word (audit.nm->connection_id);
      audit.con_shown = qf_text_clean (audit.nm->connection_id, -1);
    }

  check_link_speed (&audit);
  check_duplex (&audit);
  check_eee (&audit);
  check_coalescing (&audit);
  check_gro (&audit);
  check_irq_affinity (&audit);
  check_mtu (&audit);
  check_ip_method (&audit);
  if (audit.wireless)
    {
      check_wifi_power_save (&audit);
      check_wifi_link (&audit);
    }
  qf_nic_facts_free (audit.nic);
  g_free (audit.word);
  g_free (audit.con);
  g_free (audit.con_shown);
  return g_steal_pointer (&checks);
}
