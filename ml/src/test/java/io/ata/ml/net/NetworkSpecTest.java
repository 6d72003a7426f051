package io.ata.ml.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class NetworkSpecTest {

    private static String names(NetworkSpec spec) {
        return spec.layout().parameters().stream().map(Object::toString).collect(Collectors.joining(","));
    }

    /**
     * The presets: mlp is 784x256x128x10; cnn has three convolutions and two pools, its parameters
     * named as DJL names them (seen in the DJL probe: pools, ReLUs and the flatten take positions).
     */
    static Stream<Arguments> presets() {
        return Stream.of(
                Arguments.of(
                        "mlp",
                        NetworkSpec.mlp(),
                        "01Linear_weight[256, 784],01Linear_bias[256],03Linear_weight[128, 256],03Linear_bias[128],"
                                + "05Linear_weight[10, 128],05Linear_bias[10]",
                        784 * 256 + 256 + 256 * 128 + 128 + 128 * 10 + 10,
                        "mlp:256,128,in=784,classes=10"),
                Arguments.of(
                        "cnn",
                        NetworkSpec.cnn(),
                        "01Conv2d_weight[16, 1, 3, 3],01Conv2d_bias[16],04Conv2d_weight[32, 16, 3, 3],"
                                + "04Conv2d_bias[32],07Conv2d_weight[32, 32, 3, 3],07Conv2d_bias[32],"
                                + "10Linear_weight[10, 1568],10Linear_bias[10]",
                        29738,
                        "cnn:16,32,32,in=1x28x28,classes=10"));
    }

    @ParameterizedTest
    @MethodSource("presets")
    void presetsParseToTheirLayouts(String text, NetworkSpec preset, String names, int count, String canonical) {
        NetworkSpec parsed = NetworkSpec.parse(text);
        assertEquals(preset, parsed);
        assertEquals(names, names(parsed));
        assertEquals(count, parsed.parameterCount());
        assertEquals(canonical, parsed.toString());
    }

    @Test
    void customSizesAreHiddenLayers() {
        NetworkSpec big = NetworkSpec.parse("mlp:4096,2048");
        assertEquals(List.of(4096, 2048), big.hidden());
        assertEquals(784L * 4096 + 4096 + 4096L * 2048 + 2048 + 2048 * 10 + 10, big.parameterCount());
        assertEquals(11_626_506, big.parameterCount());

        NetworkSpec cnn = NetworkSpec.parse("cnn:8");
        assertEquals(
                "01Conv2d_weight[8, 1, 3, 3],01Conv2d_bias[8],05Linear_weight[10, 1568],05Linear_bias[10]", names(cnn));

        NetworkSpec fourConv = NetworkSpec.parse(" CNN:4,4,4,4,in=3x32x32,classes=5 ");
        // pools after the first two convolutions only: 32 -> 16 -> 8, then 8x8 stays
        assertEquals(
                List.of(5, 4 * 8 * 8), fourConv.layout().parameters().get(8).shape());
        assertEquals(
                "01Conv2d_weight,01Conv2d_bias,04Conv2d_weight,04Conv2d_bias,07Conv2d_weight,07Conv2d_bias,"
                        + "09Conv2d_weight,09Conv2d_bias,12Linear_weight,12Linear_bias",
                fourConv.layout().parameters().stream()
                        .map(ParameterShape::name)
                        .collect(Collectors.joining(",")));
    }

    @Test
    void positionsPastNinetyNineGetThreeDigits() {
        String sizes = String.join(",", java.util.Collections.nCopies(50, "2"));
        NetworkSpec deep = NetworkSpec.parse("mlp:" + sizes);
        List<ParameterShape> params = deep.layout().parameters();
        assertEquals("99Linear_weight", params.get(98).name());
        assertEquals("101Linear_weight", params.get(100).name());
    }

    @ParameterizedTest
    @ValueSource(strings = {"mlp", "cnn", "mlp:4096,2048", "cnn:8,16,in=3x9x9,classes=3", "mlp:7,in=20,classes=2"})
    void canonicalFormParsesBack(String text) {
        NetworkSpec spec = NetworkSpec.parse(text);
        assertEquals(spec, NetworkSpec.parse(spec.toString()));
    }

    @Test
    void missingInputAndClassesComeFromTheData() {
        assertEquals(
                "mlp:64,in=20,classes=3",
                NetworkSpec.parse("mlp:64", List.of(20), 3).toString());
        assertEquals(
                "mlp:256,128,in=784,classes=10",
                NetworkSpec.parse("mlp", List.of(1, 28, 28), 10).toString());
        assertEquals(
                "cnn:16,32,32,in=3x32x32,classes=100",
                NetworkSpec.parse("cnn", List.of(3, 32, 32), 100).toString());
        // explicit values win over the data's
        assertEquals(
                "mlp:64,in=5,classes=4",
                NetworkSpec.parse("mlp:64,in=5,classes=4", List.of(20), 3).toString());
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "rnn:5|unknown network kind 'rnn'",
                "mlp:|nothing after ':'",
                "mlp:12,x|layer size 'x' is not a whole number",
                "mlp:0|layer size 0 is not positive",
                "mlp:10,,5|layer size '' is not a whole number",
                "mlp:8,in=1x28x28|mlp takes a flat input (in=N), not 1x28x28",
                "cnn:8,in=784|cnn takes images (in=CxHxW), not 784",
                "cnn:8,8,in=1x3x3|cnn input 1x3x3 is too small for 2 2x2 poolings",
                "mlp:8,classes=1|a classifier needs at least 2 classes",
                "mlp:8,dtype=float16|dtype float16 is not supported (only float32)",
                "mlp:70000,70000|more than one flat float array holds",
            })
    void badTextGetsAClearError(String text, String reason) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NetworkSpec.parse(text));
        assertTrue(e.getMessage().startsWith("network '" + text + "': "), e.getMessage());
        assertTrue(e.getMessage().contains(reason), e.getMessage());
        assertTrue(e.getMessage().contains("e.g. mlp:4096,2048"), e.getMessage());
    }

    @Test
    void cnnOnFlatDataNeedsAnExplicitImageShape() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> NetworkSpec.parse("cnn", List.of(784), 10));
        assertTrue(e.getMessage().contains("cnn takes images (in=CxHxW), not 784"), e.getMessage());
        assertEquals(
                29738,
                NetworkSpec.parse("cnn:16,32,32,in=1x28x28", List.of(784), 10).parameterCount());
    }
}
