// The arena over time as an SVG picture: x is the operation index, y the
// offset in the arena; one labelled rectangle per buffer, scratch in its own
// colour, the lower bound as a dashed line.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

#include "compiler/emit/report.h"

namespace tinyaot {
namespace {

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string fit(std::string text, size_t max_chars) {
  if (text.size() > max_chars) text = text.substr(0, max_chars > 1 ? max_chars - 1 : 0) + "~";
  return text;
}

std::string short_name(std::string name, size_t max_chars) {
  // TFLite tensor names are paths ("model/conv_3/Relu;..."): keep the tail.
  if (const auto semicolon = name.find(';'); semicolon != std::string::npos)
    name = name.substr(0, semicolon);
  // Keep the last two path parts ("activation_2/Relu"): the layer and what it is.
  if (const auto last = name.rfind('/'); last != std::string::npos && last > 0) {
    if (const auto before = name.rfind('/', last - 1); before != std::string::npos)
      name = name.substr(before + 1);
  }
  return fit(name, max_chars);
}

// Operator types as a person says them ("dwconv", "fc"), short enough for
// a rectangle one operation wide.
std::string short_op(const std::string& type) {
  static const std::pair<const char*, const char*> kShort[] = {
      {"CONV_2D", "conv"},        {"DEPTHWISE_CONV_2D", "dwconv"},
      {"FULLY_CONNECTED", "fc"},  {"AVERAGE_POOL_2D", "avgpool"},
      {"MAX_POOL_2D", "maxpool"}, {"TRANSPOSE_CONV", "tconv"},
      {"BATCH_MATMUL", "matmul"}, {"CONCATENATION", "concat"},
      {"STRIDED_SLICE", "slice"}, {"HARD_SWISH", "hswish"},
      {"LEAKY_RELU", "lrelu"},    {"DEQUANTIZE", "dequant"},
      {"QUANTIZE", "quant"},
  };
  for (const auto& [long_name, short_name] : kShort)
    if (type == long_name) return short_name;
  std::string out;
  for (char c : type) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// What a rectangle says: the model's input, or which operation wrote it.
std::string buffer_label(const nlohmann::json& r, const nlohmann::json& b) {
  const std::string name = b["name"].get<std::string>();
  for (const auto& io : r["inputs"])
    if (io.value("name", "") == name) return "input";
  if (b["kind"] == "scratch") return "scratch";
  if (b["kind"] == "state") return "state " + short_name(name, 18);
  const size_t first = b["first_op"].get<size_t>();
  if (first < r["operations"].size())
    return "#" + std::to_string(first) + " " +
           short_op(r["operations"][first].value("type", std::string("op")));
  return short_name(name, 24);
}

std::string kilobytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), bytes >= 1024 ? "%.1f KiB" : "%.0f B",
                bytes >= 1024 ? bytes / 1024 : bytes);
  return text;
}

}  // namespace

std::string report_svg(const nlohmann::json& r) {
  const double arena = std::max(16.0, r["arena_bytes"].get<double>());
  const double bound = r["lower_bound_bytes"].get<double>();
  const size_t num_ops = std::max<size_t>(1, r["operations"].size());
  const double left = 90, top = 60, plot_w = std::max(640.0, std::min(1600.0, 34.0 * num_ops)),
               plot_h = 560;
  const double width = left + plot_w + 30, height = top + plot_h + 110;
  const double op_w = plot_w / static_cast<double>(num_ops);
  auto y_of = [&](double offset) { return top + plot_h - offset / arena * plot_h; };

  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"11\">\n";
  s << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  s << "<text x=\"" << left << "\" y=\"24\" font-size=\"16\" font-weight=\"bold\">"
    << escape(r.value("model", "program")) << ": arena " << kilobytes(arena) << " ("
    << static_cast<uint64_t>(arena) << " bytes) on " << r["core"].get<std::string>() << "</text>\n";
  s << "<text x=\"" << left << "\" y=\"42\" fill=\"#555\">lower bound "
    << static_cast<uint64_t>(bound) << " bytes; planner " << escape(r.value("planner", ""))
    << "; rounding " << r["rounding"].get<std::string>() << "</text>\n";
  // Grid: offsets every quarter of the arena, operations every few steps.
  for (int q = 0; q <= 4; ++q) {
    const double offset = arena * q / 4, y = y_of(offset);
    s << "<line x1=\"" << left << "\" x2=\"" << left + plot_w << "\" y1=\"" << y << "\" y2=\"" << y
      << "\" stroke=\"#e4e4e4\"/>\n";
    s << "<text x=\"" << left - 6 << "\" y=\"" << y + 4 << "\" text-anchor=\"end\" fill=\"#555\">"
      << kilobytes(offset) << "</text>\n";
  }
  // Each operation's index and type under the axis, slanted to fit.
  const size_t step = std::max<size_t>(1, num_ops / 48);
  for (size_t i = 0; i < r["operations"].size(); i += step) {
    const double x = left + op_w * (static_cast<double>(i) + 0.5);
    const double y = top + plot_h + 12;
    s << "<text transform=\"translate(" << x << "," << y
      << ") rotate(-40)\" text-anchor=\"end\" fill=\"#555\" font-size=\"10\">"
      << escape(short_op(r["operations"][i].value("type", std::string("op")))) << " " << i
      << "</text>\n";
  }
  s << "<text x=\"" << left + plot_w / 2 << "\" y=\"" << top + plot_h + 64
    << "\" text-anchor=\"middle\">operation (execution order)</text>\n";
  s << "<text transform=\"translate(18," << top + plot_h / 2
    << ") rotate(-90)\" text-anchor=\"middle\">arena offset</text>\n";

  for (const auto& b : r["buffers"]) {
    const double bytes = b["bytes"].get<double>();
    if (bytes <= 0) continue;
    const bool scratch = b["kind"] == "scratch", state = b["kind"] == "state";
    const double x0 = left + op_w * b["first_op"].get<double>();
    const double x1 = left + op_w * (b["last_op"].get<double>() + 1);
    const double y0 = y_of(b["offset"].get<double>() + bytes), y1 = y_of(b["offset"].get<double>());
    const std::string name = b["name"].get<std::string>();
    s << "<g><title>" << escape(name) << ": " << static_cast<uint64_t>(bytes) << " bytes at offset "
      << b["offset"].get<uint64_t>() << ", operations " << b["first_op"] << ".." << b["last_op"]
      << "</title>";
    s << "<rect x=\"" << x0 + 1 << "\" y=\"" << y0 << "\" width=\"" << std::max(1.0, x1 - x0 - 2)
      << "\" height=\"" << std::max(1.0, y1 - y0) << "\" rx=\"2\" fill=\""
      << (scratch ? "#f4a259"
          : state ? "#6a994e"
                  : "#5b8def")
      << "\" fill-opacity=\"0.85\" stroke=\""
      << (scratch ? "#b86b1e"
          : state ? "#386641"
                  : "#2c5cc5")
      << "\"/>";
    const double box_w = x1 - x0, box_h = y1 - y0;
    if (box_h >= 13 && box_w >= 30) {
      const size_t chars = static_cast<size_t>(std::max(3.0, (box_w - 4) / 5.8));
      s << "<text x=\"" << x0 + 4 << "\" y=\"" << y0 + std::min(box_h / 2 + 4, 14.0)
        << "\" fill=\"#fff\">" << escape(fit(buffer_label(r, b), chars)) << "</text>";
      if (box_h >= 28)
        s << "<text x=\"" << x0 + 4 << "\" y=\"" << y0 + std::min(box_h / 2 + 4, 14.0) + 13
          << "\" fill=\"#eef\">" << kilobytes(bytes) << "</text>";
    }
    s << "</g>\n";
  }
  const double yb = y_of(bound);
  s << "<line x1=\"" << left << "\" x2=\"" << left + plot_w << "\" y1=\"" << yb << "\" y2=\"" << yb
    << "\" stroke=\"#d62728\" stroke-width=\"1.5\" stroke-dasharray=\"6,4\"/>\n";
  s << "<text x=\"" << left + plot_w << "\" y=\"" << yb - 4
    << "\" text-anchor=\"end\" fill=\"#d62728\">lower bound " << kilobytes(bound) << "</text>\n";
  s << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << plot_w << "\" height=\""
    << plot_h << "\" fill=\"none\" stroke=\"#999\"/>\n";
  // Legend.
  const double ly = top + plot_h + 80;
  s << "<rect x=\"" << left << "\" y=\"" << ly
    << "\" width=\"14\" height=\"10\" fill=\"#5b8def\"/><text x=\"" << left + 20 << "\" y=\""
    << ly + 9 << "\">tensor</text>\n";
  s << "<rect x=\"" << left + 80 << "\" y=\"" << ly
    << "\" width=\"14\" height=\"10\" fill=\"#f4a259\"/><text x=\"" << left + 100 << "\" y=\""
    << ly + 9 << "\">kernel scratch</text>\n";
  s << "<line x1=\"" << left + 210 << "\" x2=\"" << left + 232 << "\" y1=\"" << ly + 5 << "\" y2=\""
    << ly + 5 << "\" stroke=\"#d62728\" stroke-dasharray=\"6,4\"/><text x=\"" << left + 238
    << "\" y=\"" << ly + 9 << "\">lower bound (most bytes alive at once)</text>\n";
  s << "</svg>\n";
  return s.str();
}

}  // namespace tinyaot
