/* qf-cli-interfaces.c — `qualify-cli interfaces`: the network interfaces as the wizard sees them
 * (from NetworkManager, or from the kernel when it is not running), and the network readiness
 * audit of one interface that `sysinfo --iface` prints and `run --iface` records (src/cli). */
#include "config.h"

#include <NetworkManager.h>

#include "qf-cli.h"
#include "qf-i18n.h"
#include "qf-net-audit.h"
#include "qf-netifaces.h"
#include "qf-text.h"

/* How long to wait for NetworkManager (or the kernel scan) to fill the list. */
#define LIST_TIMEOUT_S 15

static const char *
state_id (QfNetIfaceState state)
{
  switch (state)
    {
    case QF_NET_IFACE_STATE_UNMANAGED:
      return "unmanaged";
    case QF_NET_IFACE_STATE_UNAVAILABLE:
      return "unavailable";
    case QF_NET_IFACE_STATE_DISCONNECTED:
      return "disconnected";
    case QF_NET_IFACE_STATE_CONNECTING:
      return "connecting";
    case QF_NET_IFACE_STATE_CONNECTED:
      return "connected";
    case QF_NET_IFACE_STATE_FAILED:
      return "failed";
    case QF_NET_IFACE_STATE_UNKNOWN:
    default:
      return "unknown";
    }
}

static JsonArray *
strv_json (const char *const *strv)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
    json_array_add_string_element (array, strv[i]);
  return array;
}

static JsonObject *
iface_json (QfNetIface *iface)
{
  JsonObject *obj = json_object_new ();

  json_object_set_string_member (obj, "name", qf_net_iface_get_name (iface));
  json_object_set_string_member (obj, "kind",
                                 qf_net_iface_get_kind (iface) == QF_NET_IFACE_WIRELESS ? "wireless" : "wired");
  json_object_set_string_member (obj, "state", state_id (qf_net_iface_get_state (iface)));
  json_object_set_array_member (obj, "ipv4", strv_json (qf_net_iface_get_ipv4 (iface)));
  json_object_set_array_member (obj, "ipv6", strv_json (qf_net_iface_get_ipv6 (iface)));
  json_object_set_int_member (obj, "speed_mbps", qf_net_iface_get_speed_mbps (iface));
  if (qf_net_iface_get_ssid (iface) != NULL)
    json_object_set_string_member (obj, "ssid", qf_net_iface_get_ssid (iface));
  if (qf_net_iface_get_signal (iface) >= 0)
    json_object_set_int_member (obj, "signal", qf_net_iface_get_signal (iface));
  json_object_set_boolean_member (obj, "usb", qf_net_iface_get_is_usb (iface));
  if (qf_net_iface_get_driver (iface) != NULL)
    json_object_set_string_member (obj, "driver", qf_net_iface_get_driver (iface));
  if (qf_net_iface_get_hw_address (iface) != NULL)
    json_object_set_string_member (obj, "hw_address", qf_net_iface_get_hw_address (iface));
  return obj;
}

static gboolean
timeout_reached (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Iterates the main context until ifaces knows its source and has settled (no change for a
 * moment), or LIST_TIMEOUT_S pass. */
static void
wait_for_list (QfNetIfaces *ifaces)
{
  gboolean timed_out = FALSE;
  guint timeout_id = g_timeout_add_seconds (LIST_TIMEOUT_S, timeout_reached, &timed_out);

  while (!timed_out && qf_net_ifaces_get_source (ifaces) == QF_NET_IFACES_SOURCE_NONE)
    g_main_context_iteration (NULL, TRUE);
  /* NetworkManager's objects and our rebuild idle need a few more turns of the loop */
  for (guint settle = 0; !timed_out && settle < 2; settle++)
    {
      gboolean done = FALSE;
      guint id = g_timeout_add (200, timeout_reached, &done);

      while (!done && !timed_out)
        g_main_context_iteration (NULL, TRUE);
      if (!done)
        g_source_remove (id);
    }
  if (!timed_out)
    g_source_remove (timeout_id);
}

static void
print_text (QfNetIfaces *ifaces)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (ifaces));

  if (qf_net_ifaces_get_source (ifaces) == QF_NET_IFACES_SOURCE_NETWORKMANAGER)
    g_print ("%s\n", _("Source: NetworkManager"));
  else
    g_print (_("Source: the kernel (%s)\n"), qf_net_ifaces_get_note (ifaces) ? qf_net_ifaces_get_note (ifaces) : "");
  if (n == 0)
    g_print ("%s\n", _("No wired or Wi-Fi interface found."));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(QfNetIface) iface = g_list_model_get_item (G_LIST_MODEL (ifaces), i);
      g_autofree char *name = qf_text_clean (qf_net_iface_get_name (iface), -1);
      g_autofree char *v4 = g_strjoinv (" ", (char **) qf_net_iface_get_ipv4 (iface));
      g_autofree char *v6 = g_strjoinv (" ", (char **) qf_net_iface_get_ipv6 (iface));
      g_autofree char *speed = qf_net_iface_get_speed_mbps (iface) > 0
                                 ? g_strdup_printf (_("%u Mbit/s"), qf_net_iface_get_speed_mbps (iface))
                                 : g_strdup (_("speed unknown"));

      g_print ("%-12s %-10s %-18s %s  %s %s\n", name,
               qf_net_iface_get_kind (iface) == QF_NET_IFACE_WIRELESS ? C_("network", "wireless")
                                                                      : C_("network", "wired"),
               qf_net_iface_state_to_string (qf_net_iface_get_state (iface)), speed, v4, v6);
    }
}

int
qf_cli_interfaces (int    argc,
                   char **argv)
{
  g_autoptr(QfNetIfaces) ifaces = NULL;
  gboolean json = FALSE;
  int exit_code;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object on stdout"), NULL },
    { NULL }
  };

  if (!qf_cli_parse_options ("interfaces", "",
                             _("List the wired and Wi-Fi interfaces as the wizard sees them: from "
                               "NetworkManager, or from the kernel when it is not running."),
                             entries, &argc, &argv, &exit_code))
    return exit_code;
  if (argc > 1)
    return qf_cli_errorf ("interfaces", _("unexpected argument “%s”"), argv[1]);

  ifaces = qf_net_ifaces_new ();
  wait_for_list (ifaces);
  if (json)
    {
      g_autoptr(JsonObject) obj = json_object_new ();
      JsonArray *list = json_array_new ();
      gboolean nm = qf_net_ifaces_get_source (ifaces) == QF_NET_IFACES_SOURCE_NETWORKMANAGER;

      json_object_set_string_member (obj, "test", "interfaces");
      json_object_set_string_member (obj, "source", nm ? "networkmanager" : "kernel");
      if (qf_net_ifaces_get_note (ifaces) != NULL)
        json_object_set_string_member (obj, "note", qf_net_ifaces_get_note (ifaces));
      for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (ifaces)); i++)
        {
          g_autoptr(QfNetIface) iface = g_list_model_get_item (G_LIST_MODEL (ifaces), i);
          json_array_add_object_element (list, iface_json (iface));
        }
      json_object_set_array_member (obj, "interfaces", list);
      qf_cli_print_json (obj);
      return QF_CLI_EXIT_OK;
    }
  print_text (ifaces);
  return QF_CLI_EXIT_OK;
}

/* NetworkManager's facts of iface: from key files below a fixture root, else from the running
 * daemon (NULL when it is not running or the system bus is absent). */
static QfNmFacts *
nm_facts (const char *root,
          const char *iface)
{
  g_autoptr(NMClient) client = NULL;
  g_autoptr(GError) error = NULL;

  if (root != NULL && !g_str_equal (root, "/"))
    return qf_nm_facts_from_keyfiles (root, iface);
  client = nm_client_new (NULL, &error);
  if (client == NULL)
    {
      g_debug ("NetworkManager: %s", error->message);
      return NULL;
    }
  return qf_nm_facts_from_client (client, iface);
}

GPtrArray *
qf_cli_network_audit (const char  *root,
                      const char  *iface,
                      const char  *peer,
                      GError     **error)
{
  g_autoptr(QfNmFacts) nm = nm_facts (root, iface);
  QfNetAuditConfig config = { .root = root, .iface = iface, .nm = nm, .nm_asked = TRUE, .peer = peer };

  return qf_net_audit_run (&config, error);
}

void
qf_cli_print_network_audit (GPtrArray  *checks,
                            const char *iface)
{
  g_autofree char *shown = qf_text_clean (iface, -1);

  g_print ("\n");
  g_print (_("Network readiness of %s:\n"), shown);
  for (guint i = 0; i < checks->len; i++)
    {
      QfNetAuditCheck *check = g_ptr_array_index (checks, i);

      g_print ("  %-8s %s: %s\n", qf_cli_status_mark (check->status), check->title, check->found);
      if (check->status == QF_AUDIT_OK)
        continue;
      g_print ("           %s\n", check->advice);
      if (*check->fix != '\0')
        {
          g_auto(GStrv) lines = g_strsplit (check->fix, "\n", -1);

          for (guint l = 0; lines[l] != NULL; l++)
            g_print ("           $ %s\n", lines[l]);
        }
      if (check->fix_nm != NULL)
        g_print ("           %s $ %s\n", _("NetworkManager:"), check->fix_nm);
    }
}
