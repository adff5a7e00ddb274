/* qf-cli-discover.c — `qualify-cli discover`: the helper machines that answer on the local link,
 * and `run --peer auto`'s choice among them (src/cli).
 *
 * Asks over mDNS/DNS-SD (qf-discovery.h) for --time seconds and prints each helper heard: its
 * name, addresses (link-local ones with their %interface scope), ports, whether it needs a
 * pairing code or token, and its Qualify version. Hearing none is not an error (exit 0): the
 * text says what to check.
 */
#include "config.h"

#include <ifaddrs.h>
#include <net/if.h>

#include "qf-cli.h"
#include "qf-discover.h"
#include "qf-discovery.h"
#include "qf-i18n.h"
#include "qf-netifaces.h"
#include "qf-sysinfo.h"
#include "qf-text.h"

#define QF_CLI_AUTO_PEER_MS 3000

static JsonObject *
helper_to_json (const QfHelperInfo *helper)
{
  JsonObject *obj = json_object_new ();
  JsonArray *addresses = json_array_new ();

  for (guint i = 0; helper->addresses[i] != NULL; i++)
    json_array_add_string_element (addresses, helper->addresses[i]);
  json_object_set_string_member (obj, "name", helper->name);
  json_object_set_string_member (obj, "instance", helper->instance);
  json_object_set_array_member (obj, "addresses", addresses);
  json_object_set_string_member (obj, "address", qf_helper_info_best_address (helper));
  json_object_set_string_member (obj, "iface", helper->iface);
  json_object_set_int_member (obj, "latency_port", helper->latency_port);
  json_object_set_int_member (obj, "bandwidth_port", helper->bandwidth_port);
  json_object_set_boolean_member (obj, "token_required", helper->token_required);
  json_object_set_string_member (obj, "version", helper->version);
  return obj;
}

static void
print_helper (const QfHelperInfo *helper)
{
  g_autofree char *joined = g_strjoinv (", ", helper->addresses);
  g_autofree char *addresses = qf_text_clean (joined, -1);
  g_autofree char *iface = qf_text_clean (helper->iface, -1);

  g_print ("%s\n", helper->name);
  g_print ("  %-16s %s\n", _("addresses:"), addresses);
  g_print ("  %-16s %s\n", _("heard on:"), iface);
  g_print ("  %-16s %u\n", _("latency port:"), helper->latency_port);
  g_print ("  %-16s %u\n", _("bandwidth port:"), helper->bandwidth_port);
  g_print ("  %-16s %s\n", _("code needed:"),
           helper->token_required ? _("yes (pairing code or token file)") : _("no"));
  g_print ("  %-16s %s\n", _("version:"), helper->version != NULL ? helper->version : "?");
}

static void
print_nothing_heard (const char *iface,
                     gdouble     seconds)
{
  g_autofree char *shown = iface != NULL ? qf_text_clean (iface, -1) : NULL;

  if (iface != NULL)
    g_print (_("No helper machine answered on %s in %.0f s.\n"), shown, seconds);
  else
    g_print (_("No helper machine answered on any interface in %.0f s.\n"), seconds);
  g_print ("%s\n", _("Check that the helper runs “qualify-cli serve” (without --no-announce) or "
                     "Qualify in helper mode, that the cable is plugged in and both interfaces "
                     "are up (“ip link”), and that no firewall drops UDP port 5353 (mDNS)."));
}

/* Names that several machines announce on one link, loudly, after the list. */
static void
print_conflicts (GPtrArray *helpers)
{
  g_autofree char *conflicts = qf_discover_describe_conflicts (helpers);
  g_auto(GStrv) lines = conflicts != NULL ? g_strsplit (conflicts, "\n", -1) : NULL;

  for (guint i = 0; lines != NULL && lines[i] != NULL; i++)
    g_print ("\n%s %s\n", _("CONFLICT:"), lines[i]);
}

int
qf_cli_discover (int    argc,
                 char **argv)
{
  g_autofree char *iface = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) helpers = NULL;
  gdouble seconds = 3;
  gboolean json = FALSE;
  int exit_code;
  const GOptionEntry entries[] = {
    { "iface", 0, 0, G_OPTION_ARG_STRING, &iface,
      N_("Ask on this network interface only (default: every interface that is up)"), N_("IF") },
    { "time", 0, 0, G_OPTION_ARG_DOUBLE, &seconds,
      N_("Listen for answers this many seconds (default 3)"), N_("S") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      N_("Print one JSON object with the list of helpers"), NULL },
    { NULL }
  };

  if (!qf_cli_parse_options ("discover", "", _("List the helper machines that answer on the local "
                                                "network (mDNS/DNS-SD, no address needed)."),
                             entries, &argc, &argv, &exit_code))
    return exit_code;
  if (argc > 1)
    return qf_cli_errorf ("discover", _("unexpected argument “%s”"), argv[1]);
  if (!(seconds > 0 && seconds <= 600))
    return qf_cli_errorf ("discover", _("--time must be more than 0 and at most 600 seconds"));
  if (!json)
    g_printerr (_("Asking for helper machines for %.0f s…\n"), seconds);
  helpers = qf_discovery_browse (iface, (guint) (seconds * 1000), NULL, NULL, NULL, &error);
  if (helpers == NULL)
    return qf_cli_error ("discover", error);
  if (json)
    {
      g_autoptr(JsonObject) obj = json_object_new ();
      JsonArray *list = json_array_new ();

      for (guint i = 0; i < helpers->len; i++)
        {
          const QfHelperInfo *helper = g_ptr_array_index (helpers, i);
          JsonObject *one = helper_to_json (helper);

          json_object_set_boolean_member (one, "name_conflict",
                                          qf_discover_name_in_conflict (helpers, helper));
          json_array_add_object_element (list, one);
        }
      json_object_set_array_member (obj, "helpers", list);
      qf_cli_print_json (obj);
      return QF_CLI_EXIT_OK;
    }
  for (guint i = 0; i < helpers->len; i++)
    print_helper (g_ptr_array_index (helpers, i));
  if (helpers->len == 0)
    print_nothing_heard (iface, seconds);
  print_conflicts (helpers);
  return QF_CLI_EXIT_OK;
}

/* ---- run --peer auto ------------------------------------------------------------------------ */

/* A wired network adapter of the PC, by the core's rule (not a bridge, veth or tun). */
static gboolean
is_physical_wired (const char *root,
                   const char *name)
{
  QfNetIfaceSysfs facts;

  return qf_net_iface_read_sysfs (root, name, &facts) && facts.adapter && g_str_equal (facts.kind, "wired");
}

/* The only wired interface that is up with a carrier (below root, for tests), or NULL with
 * error. */
static char *
only_wired_iface (const char  *root,
                  GError     **error)
{
  g_autoptr(GPtrArray) wired = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *names = NULL;
  struct ifaddrs *list = NULL;

  if (getifaddrs (&list) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("cannot list the network interfaces"));
      return NULL;
    }
  for (struct ifaddrs *ifa = list; ifa != NULL; ifa = ifa->ifa_next)
    if ((ifa->ifa_flags & IFF_UP) && (ifa->ifa_flags & IFF_RUNNING) && !(ifa->ifa_flags & IFF_LOOPBACK)
        && !g_ptr_array_find_with_equal_func (wired, ifa->ifa_name, g_str_equal, NULL)
        && is_physical_wired (root != NULL ? root : "/", ifa->ifa_name))
      g_ptr_array_add (wired, g_strdup (ifa->ifa_name));
  freeifaddrs (list);
  if (wired->len == 1)
    return g_strdup (g_ptr_array_index (wired, 0));
  g_ptr_array_add (wired, NULL);
  names = g_strjoinv (", ", (char **) wired->pdata);
  if (wired->len == 1)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                 _("--peer auto: no wired network adapter is up with its cable plugged in; "
                   "plug the cable in, or say which interface with --iface"));
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                 _("--peer auto: several wired interfaces are up (%s); say which one with --iface"),
                 names);
  return NULL;
}

static char *
describe_heard (GPtrArray *helpers)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < helpers->len; i++)
    {
      const QfHelperInfo *helper = g_ptr_array_index (helpers, i);
      g_autofree char *address = qf_text_clean (qf_helper_info_best_address (helper), -1);

      g_string_append_printf (text, "%s“%s” (%s)", i > 0 ? ", " : "", helper->name, address);
    }
  return g_string_free (text, FALSE);
}

QfHelperInfo *
qf_cli_discover_auto_peer (const char  *iface,
                           const char  *root,
                           GError     **error)
{
  g_autofree char *chosen = iface != NULL ? g_strdup (iface) : only_wired_iface (root, error);
  g_autoptr(GPtrArray) helpers = NULL;
  g_autofree char *heard = NULL;
  g_autofree char *shown = NULL;

  if (chosen == NULL)
    return NULL;
  shown = qf_text_clean (chosen, -1);
  g_printerr (_("Looking for the helper machine on %s…\n"), shown);
  helpers = qf_discovery_browse (chosen, QF_CLI_AUTO_PEER_MS, NULL, NULL, NULL, error);
  if (helpers == NULL)
    return NULL;
  if (helpers->len == 1)
    {
      QfHelperInfo *helper = g_ptr_array_steal_index (helpers, 0);
      g_autofree char *address = qf_text_clean (qf_helper_info_best_address (helper), -1);

      g_printerr (_("Helper machine “%s” found on %s at %s\n"), helper->name, shown, address);
      return helper;
    }
  if (helpers->len == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("--peer auto: no helper machine answered on %s in %u s; start “qualify-cli "
                     "serve” or Qualify's helper mode on it, check the cable, or give its "
                     "address with --peer"), shown, QF_CLI_AUTO_PEER_MS / 1000);
      return NULL;
    }
  heard = describe_heard (helpers);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
               _("--peer auto: %u helper machines answered on %s: %s; choose one with --peer "
                 "ADDRESS"), helpers->len, shown, heard);
  return NULL;
}
