/* qf-i18n.c — gettext behind a format guard (src/engine, library qf-text); see qf-i18n.h.
 *
 * The verdict on a translation is kept per catalogue entry, keyed by the address gettext hands
 * back: glibc keeps a loaded catalogue for the life of the process, so that address stands for
 * one entry (one msgid, one plural form) and a look-up costs one hash probe under a mutex. */
#include "config.h"

#include <libintl.h>
#include <string.h>

#include "qf-i18n.h"
#include "qf-text.h"

static GMutex verdicts_lock;
static GHashTable *verdicts;   /* translation → GINT_TO_POINTER (1 usable, 2 refused) */

/* Whether translation may stand in for original (see qf-i18n.h); any thread. */
static gboolean
usable (const char *original,
        const char *translation,
        gboolean    plural)
{
  gpointer verdict;
  gboolean ok;

  g_mutex_lock (&verdicts_lock);
  if (verdicts == NULL)
    verdicts = g_hash_table_new (g_direct_hash, g_direct_equal);
  verdict = g_hash_table_lookup (verdicts, translation);
  if (verdict == NULL)
    {
      ok = qf_text_format_compatible (original, translation, plural);
      g_hash_table_insert (verdicts, (gpointer) translation, GINT_TO_POINTER (ok ? 1 : 2));
      if (!ok)
        {
          g_autofree char *shown = qf_text_clean (original, -1);

          g_warning ("The translation of “%s” in the %s catalogue does not use the same %% "
                     "conversions as the original; the original is shown instead. Reinstall "
                     "Qualify or fix the catalogue (msgfmt -c).", shown, GETTEXT_PACKAGE);
        }
    }
  else
    ok = GPOINTER_TO_INT (verdict) == 1;
  g_mutex_unlock (&verdicts_lock);
  return ok;
}

const char *
qf_gettext (const char *msgid)
{
  const char *translation;

  if (msgid == NULL || *msgid == '\0')
    return msgid;
  translation = dgettext (GETTEXT_PACKAGE, msgid);
  if (translation == msgid || usable (msgid, translation, FALSE))
    return translation;
  return msgid;
}

const char *
qf_ngettext (const char *msgid,
             const char *msgid_plural,
             gulong      n)
{
  const char *english = n == 1 ? msgid : msgid_plural;
  const char *translation = dngettext (GETTEXT_PACKAGE, msgid, msgid_plural, n);

  if (translation == msgid || translation == msgid_plural)
    return translation;
  /* The plural carries every argument ("%u tests"); a form may leave the count out. */
  if (usable (msgid_plural, translation, TRUE))
    return translation;
  return english;
}

char *
qf_i18n_interface_language (void)
{
  /* the catalogue's header, which gettext returns for the empty message (named, so that
   * xgettext does not take it for a message to translate) */
  static const char header_msgid[] = "";
  const char *header = dgettext (GETTEXT_PACKAGE, header_msgid);
  const char *line = header != NULL ? strstr (header, "Language: ") : NULL;
  gsize length;

  if (line == NULL || (line != header && line[-1] != '\n'))
    return g_strdup ("en");
  line += strlen ("Language: ");
  length = strcspn (line, " \t\r\n");
  return length > 0 ? g_strndup (line, length) : g_strdup ("en");
}
