#pragma once
// The views of the window, in tab order (views/view_registry.cpp): the one place that names them.
// A new view is its View subclass (views/view.hpp) and one line in createViews.
#include "views/view.hpp"

namespace rbmscope {

// Makes every view (their widgets are children of ctx.parent, the rest of ctx.owner) and the
// objects some of them share (the AIS pipeline of the density, annealing, compare and estimates views).
ViewList createViews(const ViewContext& ctx);

}  // namespace rbmscope
