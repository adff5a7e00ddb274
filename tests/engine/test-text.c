/* test-text.c — qf-text (src/engine/qf-text.c) and the translation layer (qf-i18n.c): names
 * cleaned for a terminal, shell words that bash reads back as exactly the word and run nothing,
 * the printf-conversion guard, every shipped translation passing it, and _() refusing a hostile
 * catalogue's formats. */
#include "config.h"

#include <glib/gstdio.h>
#include <locale.h>
#include <string.h>
#include <unistd.h>

#include "qf-i18n.h"
#include "qf-text.h"

/* Names from outside reach terminals: no control character may get through. */
static void
test_clean (void)
{
  g_autofree char *clean = qf_text_clean ("Lab\x1b" "]0;x\x07 PC\n\xc2\x9b" "31m\xff", -1);
  g_autofree char *part = qf_text_clean ("ab\x1b" "cd", 3);
  g_autofree char *chinese = qf_text_clean ("有线连接 1", -1);
  g_autofree char *bidi = qf_text_clean ("ab\u202e" "cd", -1);

  g_assert_true (g_utf8_validate (clean, -1, NULL));
  for (const char *p = clean; *p != '\0'; p = g_utf8_next_char (p))
    g_assert_false (g_unichar_iscntrl (g_utf8_get_char (p)));
  g_assert_nonnull (strstr (clean, "Lab\xef\xbf\xbd]0;x\xef\xbf\xbd PC"));
  g_assert_cmpstr (part, ==, "ab\xef\xbf\xbd");
  g_assert_cmpstr (chinese, ==, "有线连接 1");
  g_assert_cmpstr (bidi, ==, "ab\xef\xbf\xbd" "cd");   /* a right-to-left override */
}

/* What bash makes of `printf %s WORD > out` run in dir: the bytes written; files that appeared
 * besides out are counted in *others. */
static char *
bash_reads (const char *dir,
            const char *word,
            guint      *others)
{
  g_autofree char *command = g_strdup_printf ("printf %%s %s > out", word);
  const char *argv[] = { "bash", "--norc", "--noprofile", "-c", command, NULL };
  g_autofree char *out_path = g_build_filename (dir, "out", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) listing = NULL;
  char *bytes = NULL;
  int status = 0;

  g_assert_true (g_spawn_sync (dir, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
                               NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (out_path, &bytes, NULL, NULL));
  g_unlink (out_path);
  *others = 0;
  listing = g_dir_open (dir, 0, NULL);
  while (g_dir_read_name (listing) != NULL)
    (*others)++;
  return bytes;
}

/* Every byte a shell or a terminal cares about: bash reads back exactly the word, creates no
 * file, and the quoted form holds no control character. */
static void
test_shell_word (void)
{
  static const char *const words[] = {
    "eth0", "Wired-1", "enp3s0.100", "", "a$(id>P1)", "c;id>P3", "x`id`", "a b", "it's",
    "back\\slash", "e\x1b[31mred", "tab\tname", "new\nline", "bell\x07", "del\x7f",
    "有线连接 1", "\xff\xfe", "\xc2\x9b" "31m", "$HOME", "~root", "*", "!event", "#x", "{a,b}",
    "'", "\\'", "-x", "a\\$b'c\"d", NULL,
  };
  g_autofree char *dir = g_dir_make_tmp ("qf-shell-word-XXXXXX", NULL);

  g_assert_nonnull (dir);
  for (guint i = 0; words[i] != NULL; i++)
    {
      g_autofree char *quoted = qf_text_shell_word (words[i]);
      g_autofree char *read = NULL;
      guint others = 0;

      for (const char *p = quoted; *p != '\0'; p++)
        g_assert_false ((guchar) *p < 0x20 || *p == 0x7f);
      g_assert_null (strstr (quoted, "\xc2\x9b"));
      read = bash_reads (dir, quoted, &others);
      g_test_message ("%s", quoted);
      g_assert_cmpstr (read, ==, words[i]);
      g_assert_cmpuint (others, ==, 0);
    }
  g_rmdir (dir);
}

static void
test_shell_word_forms (void)
{
  g_autofree char *plain = qf_text_shell_word ("enp3s0");
  g_autofree char *single = qf_text_shell_word ("c;id>P3");
  g_autofree char *ansi = qf_text_shell_word ("e\x1b[31m");
  g_autofree char *empty = qf_text_shell_word ("");

  g_assert_cmpstr (plain, ==, "enp3s0");
  g_assert_cmpstr (single, ==, "'c;id>P3'");
  g_assert_cmpstr (ansi, ==, "$'e\\E[31m'");
  g_assert_cmpstr (empty, ==, "''");
}

static void
test_format_compatible (void)
{
  /* the same conversions, reordered by position, or with %% and flags */
  g_assert_true (qf_text_format_compatible ("%s: %d", "%s：%d", FALSE));
  g_assert_true (qf_text_format_compatible ("%s of %d", "%2$d 的 %1$s", FALSE));
  g_assert_true (qf_text_format_compatible ("%.*f s", "%.*f 秒", FALSE));
  g_assert_true (qf_text_format_compatible ("100%% of %u", "%u 的 100%%", FALSE));
  g_assert_true (qf_text_format_compatible ("%'d", "%Id", FALSE));
  g_assert_true (qf_text_format_compatible ("%llu", "%llu", FALSE));
  g_assert_true (qf_text_format_compatible ("Done.\n", "完成。\n", FALSE));
  g_assert_true (qf_text_format_compatible ("%i %x", "%d %X", FALSE));
  /* not a format: the original is never given to printf */
  g_assert_true (qf_text_format_compatible ("load 100%", "%s", FALSE));
  g_assert_true (qf_text_format_compatible ("signal 50 % or better", "信号 50 % 或更好", FALSE));
  g_assert_false (qf_text_format_compatible ("%d", "% s", FALSE));
  /* different arguments: refused */
  g_assert_false (qf_text_format_compatible ("%s: %d", "%d：%s", FALSE));
  g_assert_false (qf_text_format_compatible ("%u tests", "%p %p %p", FALSE));
  g_assert_false (qf_text_format_compatible ("%s", "%s%s%s%s%s%s%s%s%s%s%s", FALSE));
  g_assert_false (qf_text_format_compatible ("Done.", "%n", FALSE));
  g_assert_false (qf_text_format_compatible ("%d", "%n", FALSE));
  g_assert_false (qf_text_format_compatible ("%d", "%hn", FALSE));
  g_assert_false (qf_text_format_compatible ("Done.", "%s", FALSE));
  g_assert_false (qf_text_format_compatible ("100%%", "100%", FALSE));
  g_assert_false (qf_text_format_compatible ("%.*f", "%f", FALSE));
  g_assert_false (qf_text_format_compatible ("%lu", "%u", FALSE));
  g_assert_false (qf_text_format_compatible ("%d", "%f", FALSE));
  g_assert_false (qf_text_format_compatible ("%s %s", "%1$s %s", FALSE));
  g_assert_false (qf_text_format_compatible ("%s %s", "%2$s", FALSE));
  g_assert_false (qf_text_format_compatible ("%s %s", "%1$s %1$d", FALSE));
  g_assert_false (qf_text_format_compatible ("%s", "%99999999999$s", FALSE));
  g_assert_false (qf_text_format_compatible ("%s", "%1$s %33$s", FALSE));
  g_assert_false (qf_text_format_compatible ("%d", "%k", FALSE));
  /* plural forms may leave out trailing arguments, never change one */
  g_assert_true (qf_text_format_compatible ("%u tests", "one test", TRUE));
  g_assert_true (qf_text_format_compatible ("%s %u warnings", "%s 个警告", TRUE));
  g_assert_false (qf_text_format_compatible ("%u x %s", "%s", TRUE));
  g_assert_false (qf_text_format_compatible ("%u tests", "%u %s", TRUE));
}

/* Every translation Qualify ships passes the guard, so the guard never costs a user a real
 * translation. Reads the build's zh_CN qualify.mo (GNU format, the host's byte order). */
static void
test_shipped_translations (void)
{
  g_autofree char *path = g_build_filename (QF_BUILD_LOCALEDIR, "zh_CN", "LC_MESSAGES",
                                            GETTEXT_PACKAGE ".mo", NULL);
  g_autofree char *data = NULL;
  gsize len = 0;
  guint32 n, orig, trans, checked = 0;

  if (!g_file_get_contents (path, &data, &len, NULL))
    {
      g_test_skip ("the build has no zh_CN catalogue");
      return;
    }
  g_assert_cmpuint (len, >=, 28);
  g_assert_cmphex (*(guint32 *) data, ==, 0x950412de);
  n = *(guint32 *) (data + 8);
  orig = *(guint32 *) (data + 12);
  trans = *(guint32 *) (data + 16);
  g_assert_cmpuint ((guint64) orig + 8ull * n, <=, len);
  g_assert_cmpuint ((guint64) trans + 8ull * n, <=, len);
  for (guint32 i = 0; i < n; i++)
    {
      guint32 olen = *(guint32 *) (data + orig + 8 * i), ooff = *(guint32 *) (data + orig + 8 * i + 4);
      guint32 tlen = *(guint32 *) (data + trans + 8 * i), toff = *(guint32 *) (data + trans + 8 * i + 4);
      const char *msgid = data + ooff, *plural = NULL;

      g_assert_cmpuint ((guint64) ooff + olen, <, len);
      g_assert_cmpuint ((guint64) toff + tlen, <, len);
      if (olen == 0)
        continue;
      if (strlen (msgid) < olen)
        plural = msgid + strlen (msgid) + 1;
      for (const char *t = data + toff; t < data + toff + tlen; t += strlen (t) + 1)
        {
          gboolean ok = qf_text_format_compatible (plural != NULL ? plural : msgid, t, plural != NULL);

          if (!ok)
            g_test_message ("refused: “%s” → “%s”", msgid, t);
          g_assert_true (ok);
          checked++;
        }
    }
  g_assert_cmpuint (checked, >, 100);
}

static void
remove_tree (const char *dir)
{
  const char *argv[] = { "rm", "-rf", "--", dir, NULL };

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
                               NULL, NULL, NULL));
}

/* A catalogue whose translations are formats of their own, written with msgfmt (no -c). */
static char *
hostile_catalogue (void)
{
  g_autofree char *dir = g_dir_make_tmp ("qf-i18n-XXXXXX", NULL);
  g_autofree char *messages = g_build_filename (dir, "xx", "LC_MESSAGES", NULL);
  g_autofree char *po = g_build_filename (dir, "hostile.po", NULL);
  g_autofree char *mo = g_build_filename (messages, "qualify.mo", NULL);
  const char *text =
    "msgid \"\"\nmsgstr \"Content-Type: text/plain; charset=UTF-8\\n\"\n"
    "\"Plural-Forms: nplurals=2; plural=n != 1;\\n\"\n\n"
    "msgid \"test-text: %s and %u\"\nmsgstr \"%p %p %p %p\"\n\n"
    "msgid \"test-text: %s\"\nmsgstr \"%s%s%s%s%s%s%s%s%s%s%s\"\n\n"
    "msgid \"test-text: plain\"\nmsgstr \"%n\"\n\n"
    "msgid \"test-text: fine %s\"\nmsgstr \"FINE %s\"\n\n"
    "msgid \"test-text: %u file\"\nmsgid_plural \"test-text: %u files\"\n"
    "msgstr[0] \"%s FILE\"\nmsgstr[1] \"%u FILES\"\n";
  const char *argv[] = { "msgfmt", "-o", mo, po, NULL };
  int status = 0;

  g_assert_cmpint (g_mkdir_with_parents (messages, 0700), ==, 0);
  g_assert_true (g_file_set_contents (po, text, -1, NULL));
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
                               NULL, &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return g_steal_pointer (&dir);
}

/* Warnings logged, recorded by warnings_writer instead of being printed (and made fatal). */
static GPtrArray *warnings;

static GLogWriterOutput
warnings_writer (GLogLevelFlags   log_level,
                 const GLogField *fields,
                 gsize            n_fields,
                 gpointer         user_data)
{
  if (log_level & G_LOG_LEVEL_WARNING)
    for (gsize i = 0; i < n_fields; i++)
      if (g_str_equal (fields[i].key, "MESSAGE"))
        {
          g_ptr_array_add (warnings, g_strdup (fields[i].value));
          return G_LOG_WRITER_HANDLED;
        }
  return g_log_writer_default (log_level, fields, n_fields, user_data);
}

/* How many recorded warnings mention text. */
static guint
warned_about (const char *text)
{
  guint n = 0;

  for (guint i = 0; i < warnings->len; i++)
    if (strstr (g_ptr_array_index (warnings, i), text) != NULL)
      n++;
  return n;
}

/* _() and qf_ngettext hand printf the original when the catalogue's string reads other
 * arguments, the translation when it reads the same ones; each refusal is logged once. */
static void
test_gettext_guard (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *line = NULL;

  if (setlocale (LC_ALL, "C.UTF-8") == NULL)
    {
      g_test_skip ("no C.UTF-8 locale");
      return;
    }
  dir = hostile_catalogue ();
  g_setenv ("LANGUAGE", "xx", TRUE);
  bindtextdomain (GETTEXT_PACKAGE, dir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  g_assert_cmpstr (dgettext (GETTEXT_PACKAGE, "test-text: fine %s"), ==, "FINE %s");

  for (guint i = 1; i <= 2; i++)
    {
      line = g_strdup_printf (_("test-text: %s and %u"), "a", i);
      g_assert_cmpstr (line, ==, i == 1 ? "test-text: a and 1" : "test-text: a and 2");
      g_clear_pointer (&line, g_free);
    }
  g_assert_cmpuint (warned_about ("“test-text: %s and %u”"), ==, 1);

  line = g_strdup_printf (_("test-text: %s"), "b");
  g_assert_cmpstr (line, ==, "test-text: b");
  g_clear_pointer (&line, g_free);
  g_assert_cmpuint (warned_about ("“test-text: %s”"), ==, 1);

  g_assert_cmpstr (_("test-text: plain"), ==, "test-text: plain");
  g_assert_cmpuint (warned_about ("“test-text: plain”"), ==, 1);

  line = g_strdup_printf (_("test-text: fine %s"), "c");
  g_assert_cmpstr (line, ==, "FINE c");
  g_clear_pointer (&line, g_free);
  g_assert_cmpuint (warned_about ("fine"), ==, 0);

  line = g_strdup_printf (qf_ngettext ("test-text: %u file", "test-text: %u files", 1), 1u);
  g_assert_cmpstr (line, ==, "test-text: 1 file");
  g_clear_pointer (&line, g_free);
  g_assert_cmpuint (warned_about ("“test-text: %u files”"), ==, 1);
  line = g_strdup_printf (qf_ngettext ("test-text: %u file", "test-text: %u files", 3), 3u);
  g_assert_cmpstr (line, ==, "3 FILES");

  g_unsetenv ("LANGUAGE");
  setlocale (LC_ALL, "C");
  remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  warnings = g_ptr_array_new_with_free_func (g_free);
  g_log_set_writer_func (warnings_writer, NULL, NULL);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/text/clean", test_clean);
  g_test_add_func ("/engine/text/shell-word", test_shell_word);
  g_test_add_func ("/engine/text/shell-word-forms", test_shell_word_forms);
  g_test_add_func ("/engine/text/format-compatible", test_format_compatible);
  g_test_add_func ("/engine/text/shipped-translations", test_shipped_translations);
  g_test_add_func ("/engine/text/gettext-guard", test_gettext_guard);
  return g_test_run ();
}
