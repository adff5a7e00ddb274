/* env-helper.c — what qf_env_init (src/core/common/qf-env.c) leaves of the environment, for
 * test-cli-secure.py, which runs this program with file capabilities (secure mode) and without.
 * Prints "secure 0|1", then each NAME=VALUE left in the environment, then "get NAME=VALUE" or
 * "get NAME unset" for each of Qualify's variables as qf_env_get reads it. */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "qf-env.h"

int
main (void)
{
  static const char *const names[] = { "QUALIFY_DATADIR", "QUALIFY_LOCALEDIR",
                                       "QUALIFY_P12_PASSWORD" };

  qf_env_init ();
  printf ("secure %d\n", qf_env_is_secure ());
  for (char **e = environ; *e != NULL; e++)
    printf ("%s\n", *e);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      const char *value = qf_env_get (names[i]);

      if (value != NULL)
        printf ("get %s=%s\n", names[i], value);
      else
        printf ("get %s unset\n", names[i]);
    }
  return 0;
}
