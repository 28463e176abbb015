import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { type CarriedItem, chargesOf, gasByOrganization, splitReceipt as sut } from "./gas-attribution";

const item = (batchIndex: number, plannedGas: number | null, organization = "org-a", kind: CarriedItem["kind"] = "sold"): CarriedItem => ({
  organizationId: organization,
  ticketeerId: `ticketeer-${organization}`,
  eventRef: `event-${organization}`,
  kind,
  batchIndex,
  plannedGas,
});

const sum = (values: readonly bigint[]) => values.reduce((total, value) => total + value, 0n);

describe("splitReceipt", () => {
  it("splits the gas in proportion to the planned gas when it divides evenly", () => {
    const shares = sut(300n, 2n, [item(0, 10_000), item(1, 20_000)]);
    expect(shares.map((share) => [share.gas, share.feeWei])).toEqual([
      [100n, 200n],
      [200n, 400n],
    ]);
  });

  it("gives the units left over to the largest remainders, the lower batch index first on a tie", () => {
    // 100 gas in thirds: 33.33 each; one unit is left and goes to batch index 0.
    expect(sut(100n, 1n, [item(0, 1), item(1, 1), item(2, 1)]).map((share) => share.gas)).toEqual([34n, 33n, 33n]);
    // 10 gas by 1:2:2 is 2, 4, 4 exactly; 11 gas leaves remainders 1/5, 2/5, 2/5: the unit goes to index 1.
    expect(sut(11n, 1n, [item(0, 1), item(1, 2), item(2, 2)]).map((share) => share.gas)).toEqual([2n, 5n, 4n]);
  });

  it("shares equally when some planned gas is unknown (signed before it was kept) or all of it is zero", () => {
    expect(sut(9n, 1n, [item(0, 5), item(1, null), item(2, 100)]).map((share) => share.gas)).toEqual([3n, 3n, 3n]);
    expect(sut(9n, 1n, [item(0, 0), item(1, 0), item(2, 0)]).map((share) => share.gas)).toEqual([3n, 3n, 3n]);
  });

  it("attributes nothing when the transaction carried nothing", () => {
    expect(sut(21_000n, 7n, [])).toEqual([]);
  });

  it("adds up exactly to the receipt's gas and fee, each fee being its gas times the effective price, for any receipt and items", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 36_000_000n }),
        fc.bigInt({ min: 0n, max: 10n ** 15n }),
        fc.array(fc.option(fc.integer({ min: 0, max: 2_000_000 }), { nil: null }), { minLength: 1, maxLength: 300 }),
        (gasUsed, price, planned) => {
          const shares = sut(
            gasUsed,
            price,
            planned.map((gas, index) => item(index, gas, `org-${index % 3}`)),
          );
          expect(sum(shares.map((share) => share.gas))).toBe(gasUsed);
          expect(sum(shares.map((share) => share.feeWei))).toBe(gasUsed * price);
          for (const share of shares) expect(share.feeWei).toBe(share.gas * price);
        },
      ),
    );
  });

  it("keeps every share within one unit of its exact proportion", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 36_000_000n }),
        fc.array(fc.integer({ min: 1, max: 2_000_000 }), { minLength: 1, maxLength: 200 }),
        (gasUsed, planned) => {
          const total = BigInt(planned.reduce((a, b) => a + b, 0));
          const shares = sut(
            gasUsed,
            1n,
            planned.map((gas, index) => item(index, gas)),
          );
          shares.forEach((share, index) => {
            const floor = (gasUsed * BigInt(planned[index])) / total;
            expect(share.gas === floor || share.gas === floor + 1n).toBe(true);
          });
        },
      ),
    );
  });
});

describe("chargesOf and gasByOrganization", () => {
  it("sum the shares per organization, event and kind, and per organization", () => {
    const shares = sut(1_000n, 3n, [item(0, 1, "a"), item(1, 1, "a", "scanned"), item(2, 1, "a"), item(3, 1, "b")]);
    expect(chargesOf(shares)).toEqual([
      { organizationId: "a", eventRef: "event-a", kind: "sold", gas: 500n, feeWei: 1_500n },
      { organizationId: "a", eventRef: "event-a", kind: "scanned", gas: 250n, feeWei: 750n },
      { organizationId: "b", eventRef: "event-b", kind: "sold", gas: 250n, feeWei: 750n },
    ]);
    expect(gasByOrganization(shares)).toEqual(
      new Map([
        ["ticketeer-a", 750n],
        ["ticketeer-b", 250n],
      ]),
    );
  });
});
