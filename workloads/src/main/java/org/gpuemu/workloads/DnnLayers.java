package org.gpuemu.workloads;

import java.util.ArrayList;
import java.util.List;

/**
 * The weight layers of the four networks COMBO trains (combo.txt §6.2: ResNet50, VGG16, Inception, DenseNet), as
 * their published architectures define them, per image: each layer's multiply-accumulates (what its Tensor-core
 * kernels compute) and the elements its element-wise CUDA-core kernels (batch norm, ReLU) touch. {@link
 * ComboWorkloads} turns them into kernel durations. The totals match the networks' published counts (VGG16 15.47 G
 * MACs, ResNet50 v1.5 4.09 G, Inception-v3 5.71 G, DenseNet-121 2.87 G: {@code DnnLayersTest}).
 *
 * <p>Sources: K. Simonyan, A. Zisserman, "Very Deep Convolutional Networks for Large-Scale Image Recognition", ICLR
 * 2015 (configuration D, no batch norm); K. He et al., "Deep Residual Learning for Image Recognition", CVPR 2016,
 * Table 1 (50-layer, with torchvision's v1.5 stride on the 3×3 convolution); C. Szegedy et al., "Rethinking the
 * Inception Architecture for Computer Vision", CVPR 2016 (torchvision's inception_v3 at 299×299, without the
 * auxiliary classifier); G. Huang et al., "Densely Connected Convolutional Networks", CVPR 2017 (DenseNet-121:
 * growth 32, bottleneck 4 × growth, compression 0.5, pre-activation batch norm on each convolution's input).
 *
 * @param name   the network
 * @param layers its weight layers in forward order
 * @param norm   whether its element-wise kernels are batch norm and ReLU (true) or ReLU alone (VGG16)
 */
public record DnnLayers(String name, List<Layer> layers, boolean norm) {

  /**
   * One weight layer, per image.
   *
   * @param weights    weights (k × k × in × out for a convolution, in × out for a fully connected layer)
   * @param macs       multiply-accumulates of its forward pass
   * @param cdElements elements its forward element-wise kernel reads (its batch norm and ReLU)
   */
  public record Layer(long weights, long macs, long cdElements) {}

  /** Multiply-accumulates of a forward pass, per image. */
  public long macs() {
    return layers.stream().mapToLong(Layer::macs).sum();
  }

  /** Weights (no biases, no batch-norm parameters). */
  public long weights() {
    return layers.stream().mapToLong(Layer::weights).sum();
  }

  private static final class Builder {
    final List<Layer> layers = new ArrayList<>();

    /** A kh × kw convolution from cin to cout channels with an oh × ow output; CD on its output. */
    Builder conv(int kh, int kw, int cin, int cout, int oh, int ow) {
      return conv(kh, kw, cin, cout, oh, ow, (long) cout * oh * ow);
    }

    Builder conv(int kh, int kw, int cin, int cout, int oh, int ow, long cdElements) {
      long weights = (long) kh * kw * cin * cout;
      layers.add(new Layer(weights, weights * oh * ow, cdElements));
      return this;
    }

    Builder square(int k, int cin, int cout, int o) {
      return conv(k, k, cin, cout, o, o);
    }

    Builder fc(int in, int out) {
      layers.add(new Layer((long) in * out, (long) in * out, out));
      return this;
    }
  }

  /** VGG16 (configuration D) at 224×224: 13 convolutions and 3 fully connected layers. */
  public static DnnLayers vgg16() {
    Builder b = new Builder();
    int[][] stages = {{224, 64, 2}, {112, 128, 2}, {56, 256, 3}, {28, 512, 3}, {14, 512, 3}};
    int cin = 3;
    for (int[] s : stages) {
      for (int i = 0; i < s[2]; i++) {
        b.square(3, cin, s[1], s[0]);
        cin = s[1];
      }
    }
    b.fc(512 * 7 * 7, 4096).fc(4096, 4096).fc(4096, 1000);
    return new DnnLayers("VGG16", List.copyOf(b.layers), false);
  }

  /** ResNet50 (v1.5) at 224×224: 53 convolutions (with the 4 projection shortcuts) and the classifier. */
  public static DnnLayers resnet50() {
    Builder b = new Builder();
    b.square(7, 3, 64, 112);
    int[][] stages = {{3, 64, 256, 56}, {4, 128, 512, 28}, {6, 256, 1024, 14}, {3, 512, 2048, 7}};
    int cin = 64;
    int inSize = 56;
    for (int[] s : stages) {
      int blocks = s[0];
      int mid = s[1];
      int out = s[2];
      int size = s[3];
      for (int i = 0; i < blocks; i++) {
        int from = i == 0 ? inSize : size;
        b.square(1, cin, mid, from);
        b.square(3, mid, mid, size);
        b.square(1, mid, out, size);
        if (i == 0) b.square(1, cin, out, size);
        cin = out;
      }
      inSize = size;
    }
    b.fc(2048, 1000);
    return new DnnLayers("ResNet50", List.copyOf(b.layers), true);
  }

  /** Inception-v3 at 299×299 (torchvision's, without the auxiliary classifier): 94 convolutions and the classifier. */
  public static DnnLayers inceptionV3() {
    Builder b = new Builder();
    b.square(3, 3, 32, 149).square(3, 32, 32, 147).square(3, 32, 64, 147); // Conv2d_1a, 2a, 2b; max pool to 73
    b.square(1, 64, 80, 73).square(3, 80, 192, 71); // Conv2d_3b, 4a; max pool to 35
    int cin = 192;
    for (int pool : new int[] {32, 64, 64}) { // Mixed_5b, 5c, 5d (InceptionA) at 35×35
      b.square(1, cin, 64, 35);
      b.square(1, cin, 48, 35).square(5, 48, 64, 35);
      b.square(1, cin, 64, 35).square(3, 64, 96, 35).square(3, 96, 96, 35);
      b.square(1, cin, pool, 35);
      cin = 64 + 64 + 96 + pool;
    }
    // Mixed_6a (InceptionB): 288 -> 768 at 17×17
    b.square(3, cin, 384, 17);
    b.square(1, cin, 64, 35).square(3, 64, 96, 35).square(3, 96, 96, 17);
    cin = 384 + 96 + cin;
    for (int c7 : new int[] {128, 160, 160, 192}) { // Mixed_6b..6e (InceptionC) at 17×17
      b.square(1, cin, 192, 17);
      b.square(1, cin, c7, 17).conv(1, 7, c7, c7, 17, 17).conv(7, 1, c7, 192, 17, 17);
      b.square(1, cin, c7, 17).conv(7, 1, c7, c7, 17, 17).conv(1, 7, c7, c7, 17, 17)
          .conv(7, 1, c7, c7, 17, 17).conv(1, 7, c7, 192, 17, 17);
      b.square(1, cin, 192, 17);
      cin = 768;
    }
    // Mixed_7a (InceptionD): 768 -> 1280 at 8×8
    b.square(1, cin, 192, 17).square(3, 192, 320, 8);
    b.square(1, cin, 192, 17).conv(1, 7, 192, 192, 17, 17).conv(7, 1, 192, 192, 17, 17).square(3, 192, 192, 8);
    cin = 320 + 192 + cin;
    for (int i = 0; i < 2; i++) { // Mixed_7b, 7c (InceptionE) at 8×8
      b.square(1, cin, 320, 8);
      b.square(1, cin, 384, 8).conv(1, 3, 384, 384, 8, 8).conv(3, 1, 384, 384, 8, 8);
      b.square(1, cin, 448, 8).square(3, 448, 384, 8).conv(1, 3, 384, 384, 8, 8).conv(3, 1, 384, 384, 8, 8);
      b.square(1, cin, 192, 8);
      cin = 2048;
    }
    b.fc(2048, 1000);
    return new DnnLayers("Inception-v3", List.copyOf(b.layers), true);
  }

  /** DenseNet-121 at 224×224: 120 convolutions (58 dense layers of two, three transitions, the stem) and the classifier. */
  public static DnnLayers densenet121() {
    Builder b = new Builder();
    int growth = 32;
    int bottleneck = 4 * growth;
    b.square(7, 3, 64, 112); // its batch norm and ReLU act on its output; max pool to 56
    int c = 64;
    int[] blocks = {6, 12, 24, 16};
    int size = 56;
    for (int k = 0; k < blocks.length; k++) {
      for (int l = 0; l < blocks[k]; l++) {
        // pre-activation: each convolution's batch norm and ReLU act on its input
        b.conv(1, 1, c, bottleneck, size, size, (long) c * size * size);
        b.conv(3, 3, bottleneck, growth, size, size, (long) bottleneck * size * size);
        c += growth;
      }
      if (k < blocks.length - 1) {
        b.conv(1, 1, c, c / 2, size, size, (long) c * size * size); // then average pool to half the size
        c /= 2;
        size /= 2;
      }
    }
    b.fc(c, 1000);
    return new DnnLayers("DenseNet-121", List.copyOf(b.layers), true);
  }
}
