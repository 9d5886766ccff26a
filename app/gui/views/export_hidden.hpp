#pragma once
// A view's controls (play button, slider, check boxes, settings rows) carry this property, set to
// true: image and playback exports leave them out, so a slide shows the figure only
// (main_window/view_export.hpp, ControlsLeftOut).
namespace rbmscope {
inline constexpr char kExportHidden[] = "rbmscopeExportHidden";
}  // namespace rbmscope
