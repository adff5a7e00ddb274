/* qf-text.h — text that is safe to show, print and paste (src/engine, library qf-text).
 *
 * Three jobs every layer needs, in one place below all of them (plain C + GLib, no engine):
 *   - qf_text_clean: a name from outside (an interface, a connection, a certificate's holder, a
 *     helper heard on the network, a task's name in a kernel trace) made fit for a terminal and a
 *     page: valid UTF-8, every control character (escape sequences, newlines, C1 controls) and
 *     formatting character (a right-to-left override could reorder the text around it) replaced
 *     by U+FFFD;
 *   - qf_text_shell_word: a word for a command Qualify shows to paste, quoted for the shell so
 *     that pasting runs that command with exactly that word and nothing else;
 *   - qf_text_format_compatible: whether a translation may stand in for its original as a printf
 *     format (the same conversions for the same arguments, as `msgfmt -c` checks); the guard of
 *     the translation layer (qf-i18n.h) and of the report's own catalogue. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* text (len -1: up to a NUL) as valid UTF-8 with every control and formatting character
 * replaced by U+FFFD. */
char     *qf_text_clean              (const char *text,
                                      gssize      len);

/* word as a shell (bash) reads it back: unchanged when every byte is plain ("eth0", "Wired-1"),
 * single-quoted when it holds other printable text ('Wired connection 1', 'c;id>P3'), and
 * $'…' with escapes when it holds control characters or bytes that are not valid UTF-8
 * ($'e\x1b[31m'), so nothing raw reaches the terminal either. */
char     *qf_text_shell_word         (const char *word);

/* TRUE when translation, used as a printf format in place of original, reads the same arguments
 * with the same types: the same conversions (in order, or by %N$ position), "%%" ignored, %n
 * never. An original that is not a valid format is not used as one: any translation is fine.
 * plural: translation is one of ngettext's forms and may use fewer leading arguments than the
 * original (a form for exactly one, "one file" for "%d files"), as msgfmt -c allows. */
gboolean  qf_text_format_compatible  (const char *original,
                                      const char *translation,
                                      gboolean    plural);

G_END_DECLS
