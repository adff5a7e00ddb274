/* replay.c — feeds every corpus file to a fuzz target's LLVMFuzzerTestOneInput, so the regular
 * test suite (plain gcc, no libFuzzer) keeps every committed input, and every crash once found
 * and fixed, passing. Arguments: files or directories (one level). Prints TAP. */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv) __attribute__ ((weak));

static guint n_run;

static gint
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

static void
replay_file (const char *path)
{
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  gsize len;

  if (!g_file_get_contents (path, &data, &len, &error))
    {
      printf ("not ok %u - %s: %s\n", ++n_run, path, error->message);
      return;
    }
  LLVMFuzzerTestOneInput ((const uint8_t *) data, len);
  /* Reaching this line is the test: a crash, an ASan report or a hang fails it. */
  printf ("ok %u - %s\n", ++n_run, path);
  fflush (stdout);
}

int
main (int    argc,
      char **argv)
{
  if (LLVMFuzzerInitialize != NULL)
    LLVMFuzzerInitialize (&argc, &argv);
  for (int i = 1; i < argc; i++)
    {
      if (g_file_test (argv[i], G_FILE_TEST_IS_DIR))
        {
          g_autoptr(GDir) dir = g_dir_open (argv[i], 0, NULL);
          g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
          const char *name;

          while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
            g_ptr_array_add (names, g_build_filename (argv[i], name, NULL));
          g_ptr_array_sort (names, compare_paths);
          for (guint j = 0; j < names->len; j++)
            replay_file (g_ptr_array_index (names, j));
        }
      else
        replay_file (argv[i]);
    }
  if (n_run == 0)
    {
      printf ("1..0 # SKIP no corpus files\n");
      return 0;
    }
  printf ("1..%u\n", n_run);
  return 0;
}
