// The Filters view as the window sees it (views/view.hpp): a picture of the model's weights, with
// nothing to run.
#include "views/filters/filters_view.hpp"
#include "views/view.hpp"

namespace rbmscope {
namespace {

class FiltersPage : public View {
public:
    explicit FiltersPage(const ViewContext& ctx) : View(ctx.owner) {
        filters_ = new FiltersView(ctx.parent);
        filters_->setObjectName(name());
    }
    QString name() const override { return QStringLiteral("filters"); }
    QString title() const override { return tr("Filters"); }
    QString toolTip() const override { return tr("Each hidden unit's weights as an image, sorted by norm"); }
    QWidget* widget() const override { return filters_; }
    QString noTransport() const override {
        return tr("the Filters view draws the model's weights: it has nothing to run");
    }
    void setModel(const rbm::Model& m, const ModelEvent& e) override {
        if (e.change == ModelChange::Opened || e.change == ModelChange::Edited) filters_->setModel(m);
    }
    std::vector<SessionField> sessionFields() const override { return filters_->sessionFields(); }

private:
    FiltersView* filters_ = nullptr;
};

}  // namespace

View* makeFiltersView(const ViewContext& ctx) { return new FiltersPage(ctx); }

}  // namespace rbmscope
