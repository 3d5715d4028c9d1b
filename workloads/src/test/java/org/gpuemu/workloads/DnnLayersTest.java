package org.gpuemu.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

class DnnLayersTest {
  /** The networks' published forward multiply-accumulates per image and weight-layer counts. */
  @Test
  void everyNetwork_hasItsPublishedLayerCount_andMultiplyAccumulates() {
    // torchvision's reported GFLOPS (multiply-accumulates): VGG16 15.47, ResNet50 4.09, Inception-v3 5.71,
    // DenseNet-121 2.83; layers: 13 + 3, 53 + 1, 94 + 1, 120 + 1
    Map<DnnLayers, double[]> published = Map.of(
        DnnLayers.vgg16(), new double[] {16, 15.47e9},
        DnnLayers.resnet50(), new double[] {54, 4.09e9},
        DnnLayers.inceptionV3(), new double[] {95, 5.71e9},
        DnnLayers.densenet121(), new double[] {121, 2.83e9});
    published.forEach((net, p) -> {
      assertEquals((int) p[0], net.layers().size(), net.name());
      assertEquals(p[1], net.macs(), 0.01 * p[1], net.name());
    });
  }

  @Test
  void weights_matchThePublishedParameterCounts_lessBiasesAndBatchNorm() {
    // VGG16 138.36 M parameters (of which 13,416 biases), ResNet50 25.56 M (53,120 batch-norm, 1,000 biases),
    // DenseNet-121 7.98 M (83,648 batch-norm, 1,000 biases)
    assertEquals(138.36e6, DnnLayers.vgg16().weights(), 0.001 * 138.36e6);
    assertEquals(25.56e6 - 54_120, DnnLayers.resnet50().weights(), 0.001 * 25.5e6);
    assertEquals(7.98e6 - 84_648, DnnLayers.densenet121().weights(), 0.005 * 7.9e6);
  }
}
