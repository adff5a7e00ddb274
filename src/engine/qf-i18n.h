/* qf-i18n.h — the translation layer every file of src/ includes instead of <glib/gi18n.h>
 * (src/engine, library qf-text).
 *
 * _() and qf_ngettext() hand back a catalogue's string only when it may stand in for the
 * original as a printf format (qf_text_format_compatible: the same conversions for the same
 * arguments, as `msgfmt -c` checks); otherwise the original English, and the reason is logged
 * once. So a broken or hostile qualify.mo can change the words but never crash the program or
 * make it print memory. N_(), C_() and friends are gi18n's. */
#pragma once

#include <glib/gi18n.h>

G_BEGIN_DECLS

#undef _
#define _(String) qf_gettext (String)

/* Any thread may call these; the verdict on each catalogue entry is kept. */
const char *qf_gettext  (const char *msgid) G_GNUC_FORMAT (1);
const char *qf_ngettext (const char *msgid,
                         const char *msgid_plural,
                         gulong      n) G_GNUC_FORMAT (1) G_GNUC_FORMAT (2);
/* The language the interface speaks, as its catalogue's header names it ("zh_CN"), or "en"
 * when no catalogue answers: gettext's own choice (LANGUAGE, LC_ALL, LC_MESSAGES, LANG, read
 * by the C library, never by Qualify), so it is the language of every string on screen. */
char       *qf_i18n_interface_language (void);

G_END_DECLS
