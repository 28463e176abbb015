import { describeAction } from "../ledger/action-descriptor";
import { CancelledEventDto } from "./dto/cancelled-event.dto";
import { CreateEventDto, NewEventDto } from "./dto/new-event.dto";
import { UpdateEventDto } from "./dto/update-event.dto";
import type { EventPlan } from "./event-acceptance";
import { cancelEvent, registerEvent, touchesChain, updateEvent } from "./event-rules";

const planNewEvent = (input: { eventId: string }, plan: EventPlan) => {
  plan.eventIds.push(input.eventId);
  plan.newEvents += 1;
};

export const EventActions = {
  /** POST /api/v1/events: the ticketeerId is required there. */
  create: describeAction({ dto: CreateEventDto, plan: planNewEvent, apply: registerEvent }),
  newEvent: describeAction({ dto: NewEventDto, plan: planNewEvent, apply: registerEvent }),
  updateEvent: describeAction({
    dto: UpdateEventDto,
    plan: (input, plan: EventPlan) => plan.eventIds.push(input.eventId),
    apply: updateEvent,
    staysOffChain: (input) => !touchesChain(input),
  }),
  /** POST /api/v1/events/{eventId}/cancel and the cancelledEvent stream action. */
  cancel: describeAction({
    dto: CancelledEventDto,
    plan: (input, plan: EventPlan) => plan.eventIds.push(input.eventId),
    apply: cancelEvent,
  }),
};
