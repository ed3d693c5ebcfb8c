#pragma once
// Light or dark, as the desktop asks. Qt follows the platform theme where there is one; where
// there is none (plain X11, offscreen) the GTK_THEME variant or BNSCOPE_THEME decides.

class QApplication;

namespace bnscope {

// True when a dark palette was applied.
bool apply_system_theme(QApplication& app);

}  // namespace bnscope
