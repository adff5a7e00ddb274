/* fuzz-core-common.h — a private scratch file for the core fuzz targets (loaders that take a
 * path), in $XDG_RUNTIME_DIR or /tmp, removed at exit. */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>
#include <stdint.h>
#include <stdlib.h>

static char *fuzz_dir;
static char *fuzz_file;

static void
fuzz_cleanup (void)
{
  if (fuzz_file != NULL)
    g_unlink (fuzz_file);
  if (fuzz_dir != NULL)
    g_rmdir (fuzz_dir);
}

static void
fuzz_scratch_init (const char *name)
{
  g_autoptr(GError) error = NULL;

  fuzz_dir = g_dir_make_tmp ("qf-fuzz-XXXXXX", &error);
  if (fuzz_dir == NULL)
    g_error ("scratch directory: %s", error->message);
  fuzz_file = g_build_filename (fuzz_dir, name, NULL);
  atexit (fuzz_cleanup);
}

static void
fuzz_scratch_write (const char    *prefix,
                    const uint8_t *data,
                    size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) all = g_string_new (prefix);

  g_string_append_len (all, (const char *) data, size);
  if (!g_file_set_contents (fuzz_file, all->str, all->len, &error))
    g_error ("scratch file: %s", error->message);
}
