/* main.c — entry point of qualify, the GTK wizard (src/ui). */
#include "config.h"

#include "qf-application.h"
#include "qf-env.h"
#include "qf-paths.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(QfApplication) app = NULL;

  qf_env_init ();
  qf_i18n_init ();
  app = qf_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
