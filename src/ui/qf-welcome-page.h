/* qf-welcome-page.h — step 1: who, for whom, where, which profile, quick or full (src/ui). */
#pragma once

#include <adwaita.h>

#include "qf-builtin-peer.h"
#include "qf-profile.h"

G_BEGIN_DECLS

#define QF_TYPE_WELCOME_PAGE (qf_welcome_page_get_type ())
G_DECLARE_FINAL_TYPE (QfWelcomePage, qf_welcome_page, QF, WELCOME_PAGE, AdwBin)

/* The chosen (full) profile, or NULL when none could be loaded. Borrowed. */
QfProfile  *qf_welcome_page_get_profile    (QfWelcomePage *self);
gboolean    qf_welcome_page_get_quick      (QfWelcomePage *self);
gboolean    qf_welcome_page_get_training   (QfWelcomePage *self);
/* Training live against the built-in peer: the chosen emulated link; NULL when training is off
 * or a recording is to be replayed. */
const QfLinkPreset *qf_welcome_page_get_training_link (QfWelcomePage *self);
/* Folder of the newest unfinished session, or NULL. */
const char *qf_welcome_page_get_resume_dir (QfWelcomePage *self);
/* Looks again for an unfinished session (after a run). */
void        qf_welcome_page_refresh_resume (QfWelcomePage *self);

G_END_DECLS
