/* test-discover.c — names that several helper machines announce on one link (src/core/steps/
 * qf-discover.c), which `qualify-cli discover` and the wizard's network page both show as a
 * conflict: the same instance or machine name on one interface, whatever the case; not the same
 * name on two interfaces, not two names. */
#include "config.h"

#include <string.h>

#include "qf-discover.h"

static QfHelperInfo *
helper (const char *instance,
        const char *name,
        const char *iface,
        const char *address)
{
  QfHelperInfo *h = g_new0 (QfHelperInfo, 1);
  const char *addresses[] = { address, NULL };

  h->instance = g_strdup (instance);
  h->name = g_strdup (name);
  h->iface = g_strdup (iface);
  h->addresses = g_strdupv ((char **) addresses);
  return h;
}

static void
test_conflicts (void)
{
  g_autoptr(GPtrArray) helpers = g_ptr_array_new_with_free_func ((GDestroyNotify) qf_helper_info_free);
  g_autofree char *text = NULL;

  g_ptr_array_add (helpers, helper ("Lab PC._qualify._tcp.local", "Lab PC", "eth0", "fe80::1%eth0"));
  g_ptr_array_add (helpers, helper ("Lab PC._qualify._tcp.local", "Impostor", "eth0", "203.0.113.5"));
  g_ptr_array_add (helpers, helper ("Bench._qualify._tcp.local", "lab pc", "eth0", "fe80::3%eth0"));
  g_ptr_array_add (helpers, helper ("Lab PC._qualify._tcp.local", "Lab PC", "eth1", "fe80::4%eth1"));
  g_ptr_array_add (helpers, helper ("Other._qualify._tcp.local", "Other", "eth0", "fe80::5%eth0"));

  /* the same instance, and the same machine name in another case, on eth0 */
  for (guint i = 0; i < 3; i++)
    g_assert_true (qf_discover_name_in_conflict (helpers, g_ptr_array_index (helpers, i)));
  /* alone on eth1; another name */
  g_assert_false (qf_discover_name_in_conflict (helpers, g_ptr_array_index (helpers, 3)));
  g_assert_false (qf_discover_name_in_conflict (helpers, g_ptr_array_index (helpers, 4)));

  text = qf_discover_describe_conflicts (helpers);
  g_assert_nonnull (text);
  g_assert_null (strchr (text, '\n'));   /* one conflict, one sentence */
  g_assert_nonnull (strstr (text, "Several machines on eth0 announce the same name “Lab PC”"));
  g_assert_nonnull (strstr (text, "fe80::1%eth0"));
  g_assert_nonnull (strstr (text, "203.0.113.5"));
  g_assert_nonnull (strstr (text, "fe80::3%eth0"));
  g_assert_null (strstr (text, "fe80::4"));
  g_assert_null (strstr (text, "Other"));

  g_ptr_array_remove_range (helpers, 1, 2);
  g_assert_null (qf_discover_describe_conflicts (helpers));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/discover/name-conflicts", test_conflicts);
  return g_test_run ();
}
