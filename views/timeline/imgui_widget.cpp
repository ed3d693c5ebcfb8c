#include "imgui_widget.h"

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <QGuiApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QWheelEvent>
#include <algorithm>
#include <cfloat>

#include "chart_theme.h"

namespace bnscope {

bool ImGuiWidget::platformSupported() {
  const QString platform = QGuiApplication::platformName();
  if (platform == QLatin1String("offscreen") || platform == QLatin1String("minimal")) return false;
  QOpenGLContext probe;
  return probe.create();
}

namespace {

// ImGui keeps one global "current" context; every entry point switches to the widget's own
// and restores the previous one, so widgets (and other ImGui users) do not disturb each other.
class ContextScope {
 public:
  explicit ContextScope(ImGuiContext* c) : previous_(ImGui::GetCurrentContext()) {
    ImGui::SetCurrentContext(c);
  }
  ~ContextScope() { ImGui::SetCurrentContext(previous_); }
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  ImGuiContext* previous_;
};

// 1.86 still reads keys through io.KeyMap/io.KeysDown: the ImGuiKey values double as indices.
int imgui_key(int qt_key) {
  switch (qt_key) {
    case Qt::Key_Tab:
      return ImGuiKey_Tab;
    case Qt::Key_Left:
      return ImGuiKey_LeftArrow;
    case Qt::Key_Right:
      return ImGuiKey_RightArrow;
    case Qt::Key_Up:
      return ImGuiKey_UpArrow;
    case Qt::Key_Down:
      return ImGuiKey_DownArrow;
    case Qt::Key_PageUp:
      return ImGuiKey_PageUp;
    case Qt::Key_PageDown:
      return ImGuiKey_PageDown;
    case Qt::Key_Home:
      return ImGuiKey_Home;
    case Qt::Key_End:
      return ImGuiKey_End;
    case Qt::Key_Insert:
      return ImGuiKey_Insert;
    case Qt::Key_Delete:
      return ImGuiKey_Delete;
    case Qt::Key_Backspace:
      return ImGuiKey_Backspace;
    case Qt::Key_Space:
      return ImGuiKey_Space;
    case Qt::Key_Return:
      return ImGuiKey_Enter;
    case Qt::Key_Enter:
      return ImGuiKey_KeyPadEnter;
    case Qt::Key_Escape:
      return ImGuiKey_Escape;
    case Qt::Key_A:
      return ImGuiKey_A;
    case Qt::Key_C:
      return ImGuiKey_C;
    case Qt::Key_V:
      return ImGuiKey_V;
    case Qt::Key_X:
      return ImGuiKey_X;
    case Qt::Key_Y:
      return ImGuiKey_Y;
    case Qt::Key_Z:
      return ImGuiKey_Z;
    default:
      return -1;
  }
}

Qt::CursorShape qt_cursor(ImGuiMouseCursor c) {
  switch (c) {
    case ImGuiMouseCursor_TextInput:
      return Qt::IBeamCursor;
    case ImGuiMouseCursor_ResizeAll:
      return Qt::SizeAllCursor;
    case ImGuiMouseCursor_ResizeNS:
      return Qt::SizeVerCursor;
    case ImGuiMouseCursor_ResizeEW:
      return Qt::SizeHorCursor;
    case ImGuiMouseCursor_Hand:
      return Qt::PointingHandCursor;
    case ImGuiMouseCursor_NotAllowed:
      return Qt::ForbiddenCursor;
    default:
      return Qt::ArrowCursor;
  }
}

}  // namespace

ImGuiWidget::ImGuiWidget(QWidget* parent) : QOpenGLWidget(parent) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  ImGuiContext* previous = ImGui::GetCurrentContext();
  imgui_ = ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // no imgui.ini next to the user's files
  io.LogFilename = nullptr;
  io.BackendPlatformName = "bnscope-qt";
  io.BackendFlags |= ImGuiBackendFlags_HasMouseCursors;
  for (int k = 0; k < ImGuiKey_COUNT; ++k) io.KeyMap[k] = k;
  ImGui::StyleColorsLight();
  ImGui::SetCurrentContext(previous);
}

ImGuiWidget::~ImGuiWidget() {
  // QOpenGLWidget's destructor destroys the context after this part of the object is gone; its
  // aboutToBeDestroyed must not call back into it.
  if (QOpenGLContext* c = context()) disconnect(c, nullptr, this, nullptr);
  shutdownRenderer();
  ImGui::DestroyContext(imgui_);  // makes the previously current context current again
}

unsigned ImGuiWidget::takeGlError() {
  const unsigned e = gl_error_;
  gl_error_ = 0;
  return e;
}

void ImGuiWidget::shutdownRenderer() {
  if (!renderer_ready_) return;
  makeCurrent();
  {
    ContextScope scope(imgui_);
    ImGui_ImplOpenGL3_Shutdown();
  }
  doneCurrent();
  renderer_ready_ = false;
}

void ImGuiWidget::initializeGL() {
  // A reparented widget gets a new GL context: the backend's objects go with the old one.
  connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, &ImGuiWidget::shutdownRenderer,
          Qt::UniqueConnection);
  if (context()->isOpenGLES()) return;  // the backend is compiled for desktop GL
  ContextScope scope(imgui_);
  renderer_ready_ = ImGui_ImplOpenGL3_Init("#version 130");
}

void ImGuiWidget::resizeGL(int, int) {
  requestFrames();
}

void ImGuiWidget::paintGL() {
  QOpenGLFunctions* f = context()->functions();
  const QColor bg = palette().color(QPalette::Base);
  f->glClearColor(bg.redF(), bg.greenF(), bg.blueF(), 1.0f);
  f->glClear(GL_COLOR_BUFFER_BIT);
  if (!renderer_ready_) return;
  while (f->glGetError() != GL_NO_ERROR) {
  }  // count only what the frame itself causes

  ContextScope scope(imgui_);
  // ImGui's own parts (tooltips) in the palette's lightness.
  if (const bool dark = palette_is_dark(this); dark != dark_style_) {
    dark ? ImGui::StyleColorsDark() : ImGui::StyleColorsLight();
    dark_style_ = dark;
  }
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(static_cast<float>(width()), static_cast<float>(height()));
  const float dpr = static_cast<float>(devicePixelRatioF());
  io.DisplayFramebufferScale = ImVec2(dpr, dpr);
  if (!clock_.isValid()) clock_.start();
  const qint64 now = clock_.nsecsElapsed();
  io.DeltaTime = last_frame_ns_ ? std::max(1e-4f, (now - last_frame_ns_) * 1e-9f) : 1.0f / 60;
  last_frame_ns_ = now;

  // At most one change per button this frame; the rest wait for the frames after.
  bool changed[ImGuiMouseButton_COUNT] = {};
  for (auto it = button_queue_.begin(); it != button_queue_.end();) {
    if (changed[it->first]) {
      ++it;
      continue;
    }
    io.MouseDown[it->first] = it->second;
    changed[it->first] = true;
    it = button_queue_.erase(it);
  }
  if (!button_queue_.empty()) update();
  ImGui_ImplOpenGL3_NewFrame();
  ImGui::NewFrame();
  buildFrame();
  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  if (const GLenum e = f->glGetError(); e != GL_NO_ERROR && gl_error_ == 0) gl_error_ = e;
  ++frames_;
  setCursor(qt_cursor(ImGui::GetMouseCursor()));
  if (extra_frames_ > 0) {
    --extra_frames_;
    update();
  }
}

void ImGuiWidget::requestFrames() {
  extra_frames_ = 2;
  update();
}

void ImGuiWidget::mouseMoveEvent(QMouseEvent* e) {
  ContextScope scope(imgui_);
  ImGui::GetIO().MousePos =
      ImVec2(static_cast<float>(e->position().x()), static_cast<float>(e->position().y()));
  requestFrames();
}

void ImGuiWidget::setMouseButton(Qt::MouseButton b, bool down) {
  int i = -1;
  switch (b) {
    case Qt::LeftButton:
      i = ImGuiMouseButton_Left;
      break;
    case Qt::RightButton:
      i = ImGuiMouseButton_Right;
      break;
    case Qt::MiddleButton:
      i = ImGuiMouseButton_Middle;
      break;
    default:
      return;
  }
  button_queue_.emplace_back(i, down);
}

void ImGuiWidget::mousePressEvent(QMouseEvent* e) {
  ContextScope scope(imgui_);
  ImGui::GetIO().MousePos =
      ImVec2(static_cast<float>(e->position().x()), static_cast<float>(e->position().y()));
  setMouseButton(e->button(), true);
  requestFrames();
}

void ImGuiWidget::mouseReleaseEvent(QMouseEvent* e) {
  ContextScope scope(imgui_);
  setMouseButton(e->button(), false);
  requestFrames();
}

void ImGuiWidget::mouseDoubleClickEvent(QMouseEvent* e) {
  mousePressEvent(e);  // ImGui detects double clicks from its own timing
}

void ImGuiWidget::wheelEvent(QWheelEvent* e) {
  ContextScope scope(imgui_);
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos =
      ImVec2(static_cast<float>(e->position().x()), static_cast<float>(e->position().y()));
  // One notch is 120 eighths of a degree; ImGui counts notches.
  io.MouseWheel += static_cast<float>(e->angleDelta().y()) / 120.0f;
  io.MouseWheelH += static_cast<float>(e->angleDelta().x()) / 120.0f;
  e->accept();
  requestFrames();
}

void ImGuiWidget::setKey(QKeyEvent* e, bool down) {
  ContextScope scope(imgui_);
  ImGuiIO& io = ImGui::GetIO();
  const Qt::KeyboardModifiers m = e->modifiers();
  io.KeyCtrl = m & Qt::ControlModifier;
  io.KeyShift = m & Qt::ShiftModifier;
  io.KeyAlt = m & Qt::AltModifier;
  io.KeySuper = m & Qt::MetaModifier;
  if (const int k = imgui_key(e->key()); k >= 0) io.KeysDown[k] = down;
  if (down && !e->text().isEmpty() && e->text().front().isPrint())
    io.AddInputCharactersUTF8(e->text().toUtf8().constData());
  requestFrames();
}

void ImGuiWidget::keyPressEvent(QKeyEvent* e) {
  setKey(e, true);
}

void ImGuiWidget::keyReleaseEvent(QKeyEvent* e) {
  setKey(e, false);
}

void ImGuiWidget::focusInEvent(QFocusEvent* e) {
  QOpenGLWidget::focusInEvent(e);
  ContextScope scope(imgui_);
  ImGui::GetIO().AddFocusEvent(true);
  requestFrames();
}

void ImGuiWidget::focusOutEvent(QFocusEvent* e) {
  QOpenGLWidget::focusOutEvent(e);
  ContextScope scope(imgui_);
  ImGui::GetIO().AddFocusEvent(false);  // also releases held keys and buttons
  requestFrames();
}

void ImGuiWidget::leaveEvent(QEvent* e) {
  QOpenGLWidget::leaveEvent(e);
  ContextScope scope(imgui_);
  ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  requestFrames();
}

}  // namespace bnscope
