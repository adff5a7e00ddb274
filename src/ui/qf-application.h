/* qf-application.h — the AdwApplication of the wizard (src/ui). */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define QF_TYPE_APPLICATION (qf_application_get_type ())
G_DECLARE_FINAL_TYPE (QfApplication, qf_application, QF, APPLICATION, AdwApplication)

QfApplication *qf_application_new (void);

G_END_DECLS
