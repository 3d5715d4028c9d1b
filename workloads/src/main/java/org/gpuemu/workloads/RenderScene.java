package org.gpuemu.workloads;

/**
 * What the host knows about a frame before its render kernels launch: the inputs of COMBO's render-time model
 * (combo.txt §5.4, Eq. 4: time_rt = a × height × width × sample, time_cuda = b × height × width × num_triangle).
 *
 * @param width     frame width in pixels
 * @param height    frame height in pixels
 * @param samples   ray samples per unit area (per pixel), the {@code sample} of Eq. 4; a density, so real
 * @param triangles triangles in the scene, {@code num_triangle} of Eq. 4; real because a load level scales it
 */
public record RenderScene(int width, int height, double samples, double triangles) {
  public RenderScene {
    if (width <= 0 || height <= 0) throw new IllegalArgumentException("frame size must be > 0: " + width + "x" + height);
    if (!(samples > 0) || !(triangles > 0) || Double.isInfinite(samples) || Double.isInfinite(triangles)) {
      throw new IllegalArgumentException("samples and triangles must be finite and > 0: " + samples + ", " + triangles);
    }
  }

  /** height × width, the frame's pixels. */
  public long pixels() {
    return (long) width * height;
  }

  /** height × width × sample: the regressor of the RT term of Eq. 4. */
  public double pixelSamples() {
    return pixels() * samples;
  }

  /** height × width × num_triangle: the regressor of the CUDA term of Eq. 4. */
  public double pixelTriangles() {
    return pixels() * triangles;
  }

  /** The same frame size with samples and triangles multiplied by {@code factor} (a heavier or lighter scene). */
  public RenderScene scaled(double factor) {
    return new RenderScene(width, height, samples * factor, triangles * factor);
  }
}
