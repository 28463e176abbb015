import { describeAction } from "../chain/ledger/action-descriptor";
import { CreateEventDto, NewEventDto } from "./dto/new-event.dto";
import { UpdateEventDto } from "./dto/update-event.dto";
import { registerEvent, updateEvent } from "./event-rules";

export const EventActions = {
  /** POST /api/v1/events: the ticketeerId is required there. */
  create: describeAction({
    dto: CreateEventDto,
    plan: (input, plan) => {
      plan.eventIds.push(input.eventId);
      plan.newEvents += 1;
    },
    apply: registerEvent,
  }),
  newEvent: describeAction({
    dto: NewEventDto,
    plan: (input, plan) => {
      plan.eventIds.push(input.eventId);
      plan.newEvents += 1;
    },
    apply: registerEvent,
  }),
  updateEvent: describeAction({
    dto: UpdateEventDto,
    plan: (input, plan) => plan.eventIds.push(input.eventId),
    apply: updateEvent,
  }),
};
