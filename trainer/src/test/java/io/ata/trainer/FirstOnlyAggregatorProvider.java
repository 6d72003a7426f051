package io.ata.trainer;

import java.util.List;

/** A provider's aggregator for {@link RuleRegistriesTest}: keeps the first gradient of a round only. */
public final class FirstOnlyAggregatorProvider implements AggregatorProvider {
    @Override
    public List<AggregatorDefinition> aggregators() {
        return List.of(new AggregatorDefinition(
                "first-only", "the first gradient of a round", settings -> new Aggregator() {
                    @Override
                    public String describe() {
                        return "first-only";
                    }

                    @Override
                    public Aggregate open(int dimension) {
                        return new Aggregate() {
                            private double[] first;

                            @Override
                            public void add(double[] gradient) {
                                if (first == null) {
                                    first = gradient.clone();
                                }
                            }

                            @Override
                            public double[] result() {
                                return first.clone();
                            }
                        };
                    }
                }));
    }
}
