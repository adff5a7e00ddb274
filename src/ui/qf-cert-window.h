/* qf-cert-window.h — the primary menu's "Signing certificate" window (src/ui). */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define QF_TYPE_CERT_WINDOW (qf_cert_window_get_type ())
G_DECLARE_FINAL_TYPE (QfCertWindow, qf_cert_window, QF, CERT_WINDOW, AdwWindow)

/* Emits "changed" after the certificate in the store was created or replaced. */
QfCertWindow *qf_cert_window_new (GtkWindow *parent);

G_END_DECLS
