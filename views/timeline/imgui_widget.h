#pragma once
// Dear ImGui inside a QOpenGLWidget: Qt's input events feed ImGui's IO and each repaint runs one
// ImGui frame drawn by ImGui's OpenGL 3 backend. Every instance owns its ImGui context, so
// several widgets can live side by side. Subclasses draw in buildFrame().

#include <QElapsedTimer>
#include <QOpenGLWidget>
#include <deque>
#include <utility>

struct ImGuiContext;

namespace bnscope {

class ImGuiWidget : public QOpenGLWidget {
  Q_OBJECT
 public:
  explicit ImGuiWidget(QWidget* parent = nullptr);
  ~ImGuiWidget() override;

  // Whether this platform can show a QOpenGLWidget at all (the offscreen and minimal platforms
  // cannot; showing one there crashes inside Qt). Callers show something else when false.
  static bool platformSupported();

  ImGuiContext* imguiContext() const { return imgui_; }
  // The first OpenGL error seen after a frame (GL_NO_ERROR when none); cleared by reading it.
  unsigned takeGlError();
  int framesRendered() const { return frames_; }
  // False when the GL backend could not start (no context, too old a GL); paintGL then only
  // clears.
  bool rendererReady() const { return renderer_ready_; }

 protected:
  // Called between ImGui::NewFrame and ImGui::Render with this widget's context current.
  virtual void buildFrame() = 0;

  void initializeGL() override;
  void paintGL() override;
  void resizeGL(int w, int h) override;

  void mouseMoveEvent(QMouseEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void mouseDoubleClickEvent(QMouseEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  void keyReleaseEvent(QKeyEvent* e) override;
  void focusInEvent(QFocusEvent* e) override;
  void focusOutEvent(QFocusEvent* e) override;
  void leaveEvent(QEvent* e) override;

 private:
  void shutdownRenderer();
  void setKey(QKeyEvent* e, bool down);
  void setMouseButton(Qt::MouseButton b, bool down);
  void requestFrames();

  ImGuiContext* imgui_ = nullptr;
  bool renderer_ready_ = false;
  unsigned gl_error_ = 0;
  int frames_ = 0;
  bool dark_style_ = false;  // ImGui starts with its light colours
  int extra_frames_ = 0;     // ImGui settles hover and animation over a couple of frames
  // Button presses and releases not yet shown to ImGui, one per button per frame: ImGui reads
  // the buttons' state once a frame, so a click (or a double click's second one) whose press
  // and release arrive between two frames would be lost.
  std::deque<std::pair<int, bool>> button_queue_;
  QElapsedTimer clock_;
  qint64 last_frame_ns_ = 0;
};

}  // namespace bnscope
